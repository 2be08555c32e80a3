-- review_arrival_counts_track: its current definition (first defined in migration 20261201080000_arrival_counts).
CREATE OR REPLACE FUNCTION review_arrival_counts_track() RETURNS trigger
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    appended BIGINT;
    last_id BIGINT;
BEGIN
    -- Each branch names only the transition tables its event has.
    IF TG_OP = 'INSERT' THEN
        INSERT INTO public.review_arrival_counts (hour, category, reason, kind, n)
        SELECT date_trunc('hour', first_seen_at, 'UTC'), category, reason, kind, count(*)
          FROM new_rows GROUP BY 1, 2, 3, 4;
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO public.review_arrival_counts (hour, category, reason, kind, n)
        SELECT hour, category, reason, kind, sum(n) FROM (
            SELECT date_trunc('hour', first_seen_at, 'UTC') AS hour, category, reason, kind, 1 AS n FROM new_rows
            UNION ALL
            SELECT date_trunc('hour', first_seen_at, 'UTC'), category, reason, kind, -1 FROM old_rows
        ) AS d GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0;
    ELSE
        INSERT INTO public.review_arrival_counts (hour, category, reason, kind, n)
        SELECT date_trunc('hour', first_seen_at, 'UTC'), category, reason, kind, -count(*)
          FROM old_rows GROUP BY 1, 2, 3, 4;
    END IF;
    GET DIAGNOSTICS appended = ROW_COUNT;
    -- About once per 1,000 delta rows: the statement whose ids cross a multiple of it.
    IF appended > 0 THEN
        last_id := currval('public.review_arrival_counts_id_seq');
        IF last_id / 1000 > (last_id - appended) / 1000 THEN
            PERFORM public.review_arrival_counts_compact();
        END IF;
    END IF;
    RETURN NULL;
END $$;
