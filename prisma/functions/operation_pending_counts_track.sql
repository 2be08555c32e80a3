-- operation_pending_counts_track: its current definition (first defined in migration 20261201030000_metric_counts).
-- Only `pending` matters here: an item's later states (dispatched, applied, ...) change nothing.
CREATE OR REPLACE FUNCTION operation_pending_counts_track() RETURNS trigger
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    appended BIGINT;
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO public.operation_pending_counts (operation_id, n)
        SELECT operation_id, count(*) FROM new_rows WHERE state = 'pending' GROUP BY 1;
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO public.operation_pending_counts (operation_id, n)
        SELECT operation_id, sum(n) FROM (
            SELECT operation_id, 1 AS n FROM new_rows WHERE state = 'pending'
            UNION ALL
            SELECT operation_id, -1 FROM old_rows WHERE state = 'pending'
        ) AS d GROUP BY 1 HAVING sum(n) <> 0;
    ELSE
        INSERT INTO public.operation_pending_counts (operation_id, n)
        SELECT operation_id, -count(*) FROM old_rows WHERE state = 'pending' GROUP BY 1;
    END IF;
    GET DIAGNOSTICS appended = ROW_COUNT;
    IF appended > 0 THEN
        PERFORM public.metric_counts_compact_if_due(currval('public.operation_pending_counts_id_seq'), appended);
    END IF;
    RETURN NULL;
END $$;
