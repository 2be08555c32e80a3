-- metric_counts_compact: its current definition (first defined in migration 20261201030000_metric_counts, last changed in 20261201040000_group_counts_log_time_order).
CREATE OR REPLACE FUNCTION metric_counts_compact() RETURNS boolean
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RETURN false;
    END IF;
    -- Any constant; lib/db/migrate.ts and lib/db/roles.ts use 727001 and 727002.
    IF NOT pg_try_advisory_xact_lock(727003) THEN
        RETURN false;
    END IF;
    WITH gone AS (DELETE FROM public.review_record_counts RETURNING status, category, reason, n)
    INSERT INTO public.review_record_counts (status, category, reason, n)
    SELECT status, category, reason, sum(n) FROM gone GROUP BY 1, 2, 3 HAVING sum(n) <> 0;
    -- GROUP BY puts NULL kinds (and error classes) in one group, as the view does.
    WITH gone AS (
        DELETE FROM public.review_group_counts
        RETURNING status, category, kind, reason, error_class, n, newest_last_seen_at
    )
    INSERT INTO public.review_group_counts (status, category, kind, reason, error_class, n, newest_last_seen_at)
    SELECT status, category, kind, reason, error_class, sum(n), max(newest_last_seen_at)
      FROM gone GROUP BY 1, 2, 3, 4, 5 HAVING sum(n) <> 0;
    WITH gone AS (DELETE FROM public.replay_counts RETURNING state, n)
    INSERT INTO public.replay_counts (state, n)
    SELECT state, sum(n) FROM gone GROUP BY 1 HAVING sum(n) <> 0;
    WITH gone AS (DELETE FROM public.operation_pending_counts RETURNING operation_id, n)
    INSERT INTO public.operation_pending_counts (operation_id, n)
    SELECT operation_id, sum(n) FROM gone GROUP BY 1 HAVING sum(n) <> 0;
    RETURN true;
END $$;
