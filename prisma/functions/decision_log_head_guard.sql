-- decision_log_head_guard: its current definition (first defined in migration 20261130000000_init, last changed in 20261201000000_decision_log_trust).
-- The head moves only forward, only from inside the chaining triggers, and only to an entry that
-- exists with exactly that hash: rewinding it or pointing it elsewhere is refused.
CREATE OR REPLACE FUNCTION decision_log_head_guard() RETURNS trigger
    LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF pg_trigger_depth() < 2 OR NEW.id <> OLD.id OR NEW.last_seq <= OLD.last_seq
       OR NOT EXISTS (SELECT 1 FROM public.decision_log WHERE seq = NEW.last_seq AND hash = NEW.last_hash) THEN
        RAISE EXCEPTION 'decision_log_head moves only through appends to decision_log'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END $$;
