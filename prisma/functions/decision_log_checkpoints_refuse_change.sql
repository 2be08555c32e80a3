-- decision_log_checkpoints_refuse_change: its current definition (first defined in migration 20261201000000_decision_log_trust).
CREATE OR REPLACE FUNCTION decision_log_checkpoints_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'decision_log_checkpoints is append-only: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END $$;
