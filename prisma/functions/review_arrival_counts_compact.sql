-- review_arrival_counts_compact: its current definition (first defined in migration 20261201080000_arrival_counts, last changed in 20261202070000_arrival_day_counts).
-- Folds the hours that have unfolded rows and adds what those rows held to their days;
-- then folds the days that got new rows. Both statements see the same committed rows (this
-- transaction's own included): rows of transactions still in flight stay unfolded in the hourly
-- table, are read there, and move to their day next time.
CREATE OR REPLACE FUNCTION review_arrival_counts_compact() RETURNS boolean
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RETURN false;
    END IF;
    -- Any constant; 727001-727003 are taken (lib/db/migrate.ts, lib/db/roles.ts, metric counts).
    IF NOT pg_try_advisory_xact_lock(727004) THEN
        RETURN false;
    END IF;
    WITH touched AS (
        SELECT DISTINCT hour FROM public.review_arrival_counts WHERE NOT folded
    ), gone AS (
        DELETE FROM public.review_arrival_counts c USING touched t WHERE c.hour = t.hour
        RETURNING c.hour, c.category, c.reason, c.kind, c.n, c.folded
    ), hours AS (
        -- GROUP BY puts NULL kinds in one group.
        INSERT INTO public.review_arrival_counts (hour, category, reason, kind, n, folded)
        SELECT hour, category, reason, kind, sum(n), true FROM gone GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0
    )
    -- Only the unfolded rows are new to the days: the folded ones were added when they were folded.
    INSERT INTO public.review_arrival_day_counts (day, category, reason, kind, n)
    SELECT date_trunc('day', hour, 'UTC'), category, reason, kind, sum(n)
      FROM gone WHERE NOT folded GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0;

    WITH touched AS (
        SELECT DISTINCT day FROM public.review_arrival_day_counts WHERE NOT folded
    ), gone AS (
        DELETE FROM public.review_arrival_day_counts c USING touched t WHERE c.day = t.day
        RETURNING c.day, c.category, c.reason, c.kind, c.n
    )
    INSERT INTO public.review_arrival_day_counts (day, category, reason, kind, n, folded)
    SELECT day, category, reason, kind, sum(n), true FROM gone GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0;
    RETURN true;
END $$;
