-- replay_counts_track: its current definition (first defined in migration 20261201030000_metric_counts).
CREATE OR REPLACE FUNCTION replay_counts_track() RETURNS trigger
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    appended BIGINT;
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO public.replay_counts (state, n) SELECT state, count(*) FROM new_rows GROUP BY 1;
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO public.replay_counts (state, n)
        SELECT state, sum(n) FROM (
            SELECT state, 1 AS n FROM new_rows UNION ALL SELECT state, -1 FROM old_rows
        ) AS d GROUP BY 1 HAVING sum(n) <> 0;
    ELSE
        INSERT INTO public.replay_counts (state, n) SELECT state, -count(*) FROM old_rows GROUP BY 1;
    END IF;
    GET DIAGNOSTICS appended = ROW_COUNT;
    IF appended > 0 THEN
        PERFORM public.metric_counts_compact_if_due(currval('public.replay_counts_id_seq'), appended);
    END IF;
    RETURN NULL;
END $$;
