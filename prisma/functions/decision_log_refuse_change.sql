-- decision_log_refuse_change: its current definition (first defined in migration 20261130000000_init).
CREATE OR REPLACE FUNCTION decision_log_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'decision_log is append-only: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END $$;
