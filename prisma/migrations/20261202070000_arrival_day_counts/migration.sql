-- The overview's 7- and 30-day arrivals in bounded work (docs/decisions/0026-overview-
-- and-charts.md, "At 1M records"). Reading them from review_arrival_counts summed about 23,000
-- hourly rows per request at 1,000,000 records (720 hours x the groups): that hash aggregate was
-- the overview's slowest part. review_arrival_day_counts holds the same counts by UTC day, 24
-- times fewer rows.
--
-- Intake pays nothing for it: the day rows are written by review_arrival_counts_compact() (about
-- once per 1,000 hourly delta rows), from the unfolded hourly rows it folds, in the same
-- statement. So in every snapshot
--   sum(n) of a day's row in review_arrival_day_counts
--     + sum(n) of that day's unfolded rows of review_arrival_counts
--   = the day's records (sum(n) of all its hourly rows)
-- and the overview reads both (the unfolded rows by their partial index): exact, as before.

CREATE TABLE "review_arrival_day_counts" (
    "id" BIGSERIAL NOT NULL,
    "day" TIMESTAMPTZ(3) NOT NULL,
    "category" "ReviewCategory" NOT NULL,
    "reason" TEXT NOT NULL,
    "kind" TEXT,
    "n" BIGINT NOT NULL,
    "folded" BOOLEAN NOT NULL DEFAULT false,
    CONSTRAINT "review_arrival_day_counts_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "review_arrival_day_counts_day" ON "review_arrival_day_counts" ("day");
CREATE INDEX "review_arrival_day_counts_unfolded" ON "review_arrival_day_counts" ("day") WHERE NOT "folded";

-- Folds the hours that have unfolded rows (as before) and adds what those rows held to their days;
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

CREATE OR REPLACE FUNCTION review_arrival_counts_truncated() RETURNS trigger
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    DELETE FROM public.review_arrival_counts;
    DELETE FROM public.review_arrival_day_counts;
    RETURN NULL;
END $$;

-- The backfill: the days of the folded hourly rows. Under this lock no other transaction appends
-- or folds hourly rows until the new function is committed with it, so no fold is counted twice
-- or missed; intake waits for the moment this takes.
LOCK TABLE "review_arrival_counts" IN SHARE ROW EXCLUSIVE MODE;

INSERT INTO "review_arrival_day_counts" ("day", "category", "reason", "kind", "n", "folded")
SELECT date_trunc('day', "hour", 'UTC'), "category", "reason", "kind", sum("n"), true
  FROM "review_arrival_counts" WHERE "folded" GROUP BY 1, 2, 3, 4 HAVING sum("n") <> 0;
