-- decision_log_next_at: its current definition (first defined in migration 20261201050000_decision_log_partitions).
-- The next entry's time for routing: the clock once the head lock is held, so no other append
-- comes in between it and the chain trigger. It does not look for the previous entry's time (that
-- probe, once more per row, made appends half again as expensive): the trigger still makes `at`
-- later than the previous entry's; should that push it past the month's end (entries stamped
-- ahead of the clock), the append is refused with RC001 rather than routed wrongly.
CREATE OR REPLACE FUNCTION decision_log_next_at() RETURNS TIMESTAMPTZ
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    PERFORM 1 FROM public.decision_log_head WHERE id = 1 FOR UPDATE;
    RETURN date_trunc('microseconds', clock_timestamp());
END $$;
