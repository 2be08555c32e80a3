-- Counts at scale (docs/decisions/0020-counts-at-scale.md): the grouped view of the
-- queue and the decision log's time windows answer in constant time at 10,000,000 records and
-- 30,000,000 log entries.
--
-- 1. review_group_counts: the grouped view (GET /api/v1/reviews/groups) counted with GROUP BY over
--    every active record (seconds at 10M). Now its counts are kept as review_record_counts are
--    (ADR 0016): signed delta rows appended by the same statement triggers, in the same
--    transaction as the change, folded by metric_counts_compact(). Its grain is every dimension the
--    view filters or groups by: status, category, kind, reason, error class. Each delta also
--    carries the latest last_seen_at among the statement's new rows of the group, so a group's
--    `newestLastSeenAt` is the latest sighting of a record while it was in the group; an upper
--    bound of the records still in it (a record that was seen last and left keeps it), labelled as
--    an estimate in the API. The oldest first sighting stays exact: first_seen_at never changes,
--    so it is read per group from an index (below) at no cost to updates.
--
-- 2. review_records_group_first_seen replaces review_records_status_kind_reason_error_class_idx
--    (the GROUP BY's index): equality on every group dimension, then first_seen_at, so the oldest
--    record of a group is its first index entry. kind and error_class are NULL for some groups,
--    and a btree probe for "oldest where kind IS NULL" is not an ordered probe, so the index keys
--    them as coalesce(.., '(none)'), the API's own spelling of null (an error class never holds
--    parentheses; a kind spelled "(none)" is already indistinguishable from none in the API).
--
-- 3. decision_log_time_order: the decision log's `at` rises with `seq` for every entry appended
--    since 20261201000000_decision_log_trust (its chain trigger sets at = greatest(clock, previous
--    at + 1 microsecond) under the head lock). So a time window is a range of seq, read from the
--    `at` index in two probes, and a page of it walks the primary key. Entries written before
--    that may be out of order (a clock stepping back): `unordered_until` is the latest `at` of
--    any entry at or before the last one out of order (NULL when there is none). A window bound
--    later than it is translated to seq; an earlier one is answered by `at` as before.

CREATE TABLE "review_group_counts" (
    "id" BIGSERIAL NOT NULL,
    "status" "ReviewStatus" NOT NULL,
    "category" "ReviewCategory" NOT NULL,
    "kind" TEXT,
    "reason" TEXT NOT NULL,
    "error_class" TEXT,
    "n" BIGINT NOT NULL,
    "newest_last_seen_at" TIMESTAMPTZ(3),
    CONSTRAINT "review_group_counts_pkey" PRIMARY KEY ("id")
);

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

-- As before for review_record_counts; review_group_counts gets its deltas from the same
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

CREATE OR REPLACE FUNCTION metric_counts_truncated() RETURNS trigger
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF TG_TABLE_NAME = 'review_records' THEN
        DELETE FROM public.review_record_counts;
        DELETE FROM public.review_group_counts;
    ELSIF TG_TABLE_NAME = 'replays' THEN
        DELETE FROM public.replay_counts;
    ELSIF TG_TABLE_NAME = 'bulk_operation_items' THEN
        DELETE FROM public.operation_pending_counts;
    END IF;
    RETURN NULL;
END $$;

-- The replaced trigger function and the backfill under one lock (readers pass), committed
-- together: no write falls between them.
LOCK TABLE "review_records" IN SHARE ROW EXCLUSIVE MODE;
INSERT INTO "review_group_counts" ("status", "category", "kind", "reason", "error_class", "n", "newest_last_seen_at")
SELECT "status", "category", "kind", "reason", "error_class", count(*), max("last_seen_at")
  FROM "review_records" GROUP BY 1, 2, 3, 4, 5;

DROP INDEX "review_records_status_kind_reason_error_class_idx";
CREATE INDEX "review_records_group_first_seen" ON "review_records"
    ("status", "category", (COALESCE("kind", '(none)')), "reason", (COALESCE("error_class", '(none)')), "first_seen_at");

CREATE TABLE "decision_log_time_order" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "unordered_until" TIMESTAMPTZ(6),
    CONSTRAINT "decision_log_time_order_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "decision_log_time_order_one_row" CHECK ("id" = 1)
);

-- One walk of the log in seq order (a few seconds per million entries). The lock keeps appends
-- out meanwhile; those after it are ordered by the chain trigger.
LOCK TABLE "decision_log" IN SHARE ROW EXCLUSIVE MODE;
INSERT INTO "decision_log_time_order" ("id", "unordered_until")
SELECT 1, (SELECT max(l.at) FROM "decision_log" l WHERE l.seq <= last_back.seq)
  FROM (SELECT max(seq) AS seq
          FROM (SELECT seq, at < lag(at) OVER (ORDER BY seq) AS back FROM "decision_log") AS walked
         WHERE back) AS last_back;
