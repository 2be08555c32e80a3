-- decision_log_chain_flush: its current definition (first defined in migration 20261130040000_decision_log_statement_head, last changed in 20261201050000_decision_log_partitions).
-- Once per INSERT statement: the head moves to the last entry, i.e. the last one this statement
-- appended (the head lock is still held), found by time as decision_log_chain() finds it, by seq
-- when the newest by time is behind the head. A statement that inserted nothing (or a log emptied
-- by archiving) leaves the head.
CREATE OR REPLACE FUNCTION decision_log_chain_flush() RETURNS trigger
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp SET enable_seqscan = off AS $$
DECLARE
    head_seq BIGINT;
    new_seq BIGINT;
    new_hash TEXT;
BEGIN
    SELECT h.last_seq INTO head_seq FROM public.decision_log_head h WHERE h.id = 1;
    SELECT l.seq, l.hash INTO new_seq, new_hash FROM public.decision_log l ORDER BY l.at DESC LIMIT 1;
    IF new_seq < head_seq THEN
        SELECT l.seq, l.hash INTO new_seq, new_hash FROM public.decision_log l ORDER BY l.seq DESC LIMIT 1;
    END IF;
    IF new_seq > head_seq THEN
        UPDATE public.decision_log_head h SET last_seq = new_seq, last_hash = new_hash
         WHERE h.id = 1 AND h.last_seq < new_seq;
    END IF;
    RETURN NULL;
END $$;
