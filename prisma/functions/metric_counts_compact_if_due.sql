-- metric_counts_compact_if_due: its current definition (first defined in migration 20261201030000_metric_counts).
-- Called by each trigger after it appended `appended` rows to a table whose id sequence now stands
-- at `last_id`: compacts when those ids crossed a multiple of 1,000.
CREATE OR REPLACE FUNCTION metric_counts_compact_if_due(last_id BIGINT, appended BIGINT) RETURNS void
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF appended > 0 AND last_id / 1000 > (last_id - appended) / 1000 THEN
        PERFORM public.metric_counts_compact();
    END IF;
END $$;
