-- The overview page (docs/decisions/0026-overview-and-charts.md): arrivals per hour and
-- day by category, reason and kind over up to 30 days, and the time to resolution per cause,
-- each in bounded time at 1,000,000 records.
--
-- 1. review_arrival_counts: records by the UTC hour of their first sighting and their category,
--    reason and kind. Kept as review_record_counts are (ADR 0016, 0020): signed delta rows appended
--    by statement-level triggers reading the statement's transition tables, in the same
--    transaction as the change, never an update of a shared row. The invariant is
--      sum(n) per (hour, category, reason, kind) =
--      count(*) FROM review_records GROUP BY date_trunc('hour', first_seen_at, 'UTC'), category, reason, kind
--    so a report that changes a record's reason (intake's ON CONFLICT .. DO UPDATE) moves it from one
--    group to the other, and a deleted record leaves. first_seen_at never changes; category, reason
--    and kind rarely do, so an UPDATE statement appends nothing in the common case.
--
--    These are separate triggers with their own compaction (and their own advisory lock), not a
--    fourth table in metric_counts_compact(): that one folds every row of its tables, which is
--    cheap for a few hundred groups but not for 30 days of hours. This one folds only the hours
--    that have unfolded rows (`folded = false`, a partial index), so its cost is the few hours
--    being written to, however long the history.
--
-- 2. review_records.finished_at: when the record became resolved or cancelled (NULL while it is
--    not), set by a row trigger that fires only on that status change (its WHEN clause is evaluated
--    without calling the function, so other updates pay nothing). updated_at is not it: a note on
--    a resolved record moves updated_at. A partial index on it reads "records finished in the
--    window, newest first" without touching the others.

CREATE TABLE "review_arrival_counts" (
    "id" BIGSERIAL NOT NULL,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "category" "ReviewCategory" NOT NULL,
    "reason" TEXT NOT NULL,
    "kind" TEXT,
    "n" BIGINT NOT NULL,
    "folded" BOOLEAN NOT NULL DEFAULT false,
    CONSTRAINT "review_arrival_counts_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "review_arrival_counts_hour" ON "review_arrival_counts" ("hour");
CREATE INDEX "review_arrival_counts_unfolded" ON "review_arrival_counts" ("hour") WHERE NOT "folded";

-- Folds the rows of every hour that has unfolded rows into one folded row per group (groups at zero
-- vanish). Rows of transactions still in flight are invisible: they stay unfolded and are folded
-- next time; the sums are the same before and after, for every snapshot. One at a time (tried,
-- never waited for), READ COMMITTED only, as metric_counts_compact().
CREATE FUNCTION review_arrival_counts_compact() RETURNS boolean
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
        RETURNING c.hour, c.category, c.reason, c.kind, c.n
    )
    -- GROUP BY puts NULL kinds in one group.
    INSERT INTO public.review_arrival_counts (hour, category, reason, kind, n, folded)
    SELECT hour, category, reason, kind, sum(n), true FROM gone GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0;
    RETURN true;
END $$;

CREATE FUNCTION review_arrival_counts_track() RETURNS trigger
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

CREATE FUNCTION review_arrival_counts_truncated() RETURNS trigger
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    DELETE FROM public.review_arrival_counts;
    RETURN NULL;
END $$;

ALTER TABLE "review_records" ADD COLUMN "finished_at" TIMESTAMPTZ(3);

-- On insert (a record written as already finished, as the synthetic seed does): its last change.
-- On a status change into resolved or cancelled: now; out of them (no path does this today): NULL.
CREATE FUNCTION review_records_set_finished_at() RETURNS trigger
    LANGUAGE plpgsql VOLATILE
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        NEW.finished_at := COALESCE(NEW.finished_at, NEW.updated_at);
    ELSIF NEW.status IN ('resolved', 'cancelled') THEN
        NEW.finished_at := now();
    ELSE
        NEW.finished_at := NULL;
    END IF;
    RETURN NEW;
END $$;

-- Under one lock (readers pass), committed together with the triggers: no write falls between
-- the backfills and the triggers.
LOCK TABLE "review_records" IN SHARE ROW EXCLUSIVE MODE;

-- The status change's time from the record's history where it has one, else its last change.
UPDATE "review_records" r
   SET "finished_at" = COALESCE(
       (SELECT max(h."at") FROM "review_history" h
         WHERE h."review_id" = r."id" AND h."to_status" IN ('resolved', 'cancelled')),
       r."updated_at")
 WHERE r."status" IN ('resolved', 'cancelled');

INSERT INTO "review_arrival_counts" ("hour", "category", "reason", "kind", "n", "folded")
SELECT date_trunc('hour', "first_seen_at", 'UTC'), "category", "reason", "kind", count(*), true
  FROM "review_records" GROUP BY 1, 2, 3, 4;

CREATE TRIGGER "review_records_finished_at_insert" BEFORE INSERT ON "review_records"
    FOR EACH ROW WHEN (NEW."status" IN ('resolved', 'cancelled'))
    EXECUTE FUNCTION review_records_set_finished_at();
CREATE TRIGGER "review_records_finished_at_update" BEFORE UPDATE OF "status" ON "review_records"
    FOR EACH ROW WHEN (OLD."status" IS DISTINCT FROM NEW."status"
                       AND (NEW."status" IN ('resolved', 'cancelled') OR OLD."status" IN ('resolved', 'cancelled')))
    EXECUTE FUNCTION review_records_set_finished_at();

CREATE TRIGGER "review_arrival_counts_insert" AFTER INSERT ON "review_records"
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION review_arrival_counts_track();
CREATE TRIGGER "review_arrival_counts_update" AFTER UPDATE ON "review_records"
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION review_arrival_counts_track();
CREATE TRIGGER "review_arrival_counts_delete" AFTER DELETE ON "review_records"
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION review_arrival_counts_track();
CREATE TRIGGER "review_arrival_counts_truncate" AFTER TRUNCATE ON "review_records"
    FOR EACH STATEMENT EXECUTE FUNCTION review_arrival_counts_truncated();

-- Covering: time to resolution reads the newest finished records of a window (kind, reason, error
-- class, first seen) from this index alone, without a heap fetch per record.
CREATE INDEX "review_records_finished_at" ON "review_records" ("finished_at")
    INCLUDE ("first_seen_at", "kind", "reason", "error_class") WHERE "finished_at" IS NOT NULL;
