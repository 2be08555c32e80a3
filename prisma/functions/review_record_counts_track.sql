-- review_record_counts_track: its current definition (first defined in migration 20261201030000_metric_counts, last changed in 20261201040000_group_counts_log_time_order).
-- Deltas for review_record_counts from the statement's transition tables; review_group_counts gets its deltas from the same
-- transition tables in the same call. An UPDATE appends a group row whenever the statement's new
-- rows hold one of the group (n may be 0): a repeated report moves the group's latest sighting.
CREATE OR REPLACE FUNCTION review_record_counts_track() RETURNS trigger
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    appended BIGINT;
    grouped BIGINT;
BEGIN
    -- Each branch names only the transition tables its event has (plpgsql plans a statement when
    -- it first runs it).
    IF TG_OP = 'INSERT' THEN
        INSERT INTO public.review_record_counts (status, category, reason, n)
        SELECT status, category, reason, count(*) FROM new_rows GROUP BY 1, 2, 3;
        GET DIAGNOSTICS appended = ROW_COUNT;
        INSERT INTO public.review_group_counts (status, category, kind, reason, error_class, n, newest_last_seen_at)
        SELECT status, category, kind, reason, error_class, count(*), max(last_seen_at)
          FROM new_rows GROUP BY 1, 2, 3, 4, 5;
        GET DIAGNOSTICS grouped = ROW_COUNT;
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO public.review_record_counts (status, category, reason, n)
        SELECT status, category, reason, sum(n) FROM (
            SELECT status, category, reason, 1 AS n FROM new_rows
            UNION ALL
            SELECT status, category, reason, -1 FROM old_rows
        ) AS d GROUP BY 1, 2, 3 HAVING sum(n) <> 0;
        GET DIAGNOSTICS appended = ROW_COUNT;
        INSERT INTO public.review_group_counts (status, category, kind, reason, error_class, n, newest_last_seen_at)
        SELECT status, category, kind, reason, error_class, sum(n), max(seen) FROM (
            SELECT status, category, kind, reason, error_class, 1 AS n, last_seen_at AS seen FROM new_rows
            UNION ALL
            SELECT status, category, kind, reason, error_class, -1, NULL FROM old_rows
        ) AS d GROUP BY 1, 2, 3, 4, 5 HAVING sum(n) <> 0 OR max(seen) IS NOT NULL;
        GET DIAGNOSTICS grouped = ROW_COUNT;
    ELSE
        INSERT INTO public.review_record_counts (status, category, reason, n)
        SELECT status, category, reason, -count(*) FROM old_rows GROUP BY 1, 2, 3;
        GET DIAGNOSTICS appended = ROW_COUNT;
        INSERT INTO public.review_group_counts (status, category, kind, reason, error_class, n)
        SELECT status, category, kind, reason, error_class, -count(*) FROM old_rows GROUP BY 1, 2, 3, 4, 5;
        GET DIAGNOSTICS grouped = ROW_COUNT;
    END IF;
    IF appended > 0 THEN
        PERFORM public.metric_counts_compact_if_due(currval('public.review_record_counts_id_seq'), appended);
    END IF;
    IF grouped > 0 THEN
        PERFORM public.metric_counts_compact_if_due(currval('public.review_group_counts_id_seq'), grouped);
    END IF;
    RETURN NULL;
END $$;
