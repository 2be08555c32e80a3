-- Counts for GET /api/metrics, kept as rows change instead of counted at scrape time
-- (docs/decisions/0016-metrics.md). A scrape used to run GROUP BY over review_records and replays
-- and a join into bulk_operation_items: its cost grew with the tables. Now it sums a few small
-- tables.
--
-- Each counts table holds signed deltas: a row per group a statement changed, never an update of a
-- shared row. A statement-level trigger per table and event reads the statement's transition
-- tables (the rows as they were and as they are), groups them, and appends one row per group
-- whose count changed (`HAVING sum(n) <> 0`: an update that leaves the status, category and
-- reason alone appends nothing). Appending never waits for another writer and takes no lock
-- another writer could hold, so concurrent intake transactions neither queue on a counter row nor
-- deadlock over one. The current count of a group is sum(n) over its rows.
--
-- Compaction folds the deltas: in one statement it deletes every row it can see and inserts one
-- row per group with the sum (groups at zero vanish). Rows of transactions still in flight are
-- invisible to it, so they stay and are folded next time; the sums are the same before and after,
-- for every snapshot. It runs from the triggers themselves, about once per 1,000 delta rows
-- (the statement whose ids cross a multiple of it), so the tables stay small whether or not anyone
-- scrapes; one compaction at a time (a transaction-level advisory lock, tried, never waited for),
-- and only in READ COMMITTED transactions (a REPEATABLE READ one could fail on rows a newer
-- compaction deleted; it leaves the work to the next one).
--
-- The functions are SECURITY DEFINER (search_path pinned, relations schema-qualified, as the
-- decision log's chain): intake and actions keep working as the runtime role, which gets only
-- SELECT on these tables (lib/db/roles.ts) and so cannot write a count itself.
--
-- No foreign key from operation_pending_counts to bulk_operations, on purpose: its check would take
-- a KEY SHARE lock on the operation's row, which the dispatcher holds FOR UPDATE; deltas must
-- never wait. Rows of operations that are no longer live are ignored by the scrape and fold away
-- at zero.

CREATE TABLE "review_record_counts" (
    "id" BIGSERIAL NOT NULL,
    "status" "ReviewStatus" NOT NULL,
    "category" "ReviewCategory" NOT NULL,
    "reason" TEXT NOT NULL,
    "n" BIGINT NOT NULL,
    CONSTRAINT "review_record_counts_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "replay_counts" (
    "id" BIGSERIAL NOT NULL,
    "state" "ReplayState" NOT NULL,
    "n" BIGINT NOT NULL,
    CONSTRAINT "replay_counts_pkey" PRIMARY KEY ("id")
);

-- Items of each bulk operation not dispatched yet (state `pending`).
CREATE TABLE "operation_pending_counts" (
    "id" BIGSERIAL NOT NULL,
    "operation_id" UUID NOT NULL,
    "n" BIGINT NOT NULL,
    CONSTRAINT "operation_pending_counts_pkey" PRIMARY KEY ("id")
);

-- Folds every visible delta row into one row per group. Returns false when another compaction
-- holds the lock or the transaction is not READ COMMITTED (nothing was done).
CREATE FUNCTION metric_counts_compact() RETURNS boolean
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
    WITH gone AS (DELETE FROM public.replay_counts RETURNING state, n)
    INSERT INTO public.replay_counts (state, n)
    SELECT state, sum(n) FROM gone GROUP BY 1 HAVING sum(n) <> 0;
    WITH gone AS (DELETE FROM public.operation_pending_counts RETURNING operation_id, n)
    INSERT INTO public.operation_pending_counts (operation_id, n)
    SELECT operation_id, sum(n) FROM gone GROUP BY 1 HAVING sum(n) <> 0;
    RETURN true;
END $$;

-- Called by each trigger after it appended `appended` rows to a table whose id sequence now stands
-- at `last_id`: compacts when those ids crossed a multiple of 1,000.
CREATE FUNCTION metric_counts_compact_if_due(last_id BIGINT, appended BIGINT) RETURNS void
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF appended > 0 AND last_id / 1000 > (last_id - appended) / 1000 THEN
        PERFORM public.metric_counts_compact();
    END IF;
END $$;

CREATE FUNCTION review_record_counts_track() RETURNS trigger
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    appended BIGINT;
BEGIN
    -- Each branch names only the transition tables its event has (plpgsql plans a statement when
    -- it first runs it).
    IF TG_OP = 'INSERT' THEN
        INSERT INTO public.review_record_counts (status, category, reason, n)
        SELECT status, category, reason, count(*) FROM new_rows GROUP BY 1, 2, 3;
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO public.review_record_counts (status, category, reason, n)
        SELECT status, category, reason, sum(n) FROM (
            SELECT status, category, reason, 1 AS n FROM new_rows
            UNION ALL
            SELECT status, category, reason, -1 FROM old_rows
        ) AS d GROUP BY 1, 2, 3 HAVING sum(n) <> 0;
    ELSE
        INSERT INTO public.review_record_counts (status, category, reason, n)
        SELECT status, category, reason, -count(*) FROM old_rows GROUP BY 1, 2, 3;
    END IF;
    GET DIAGNOSTICS appended = ROW_COUNT;
    IF appended > 0 THEN
        PERFORM public.metric_counts_compact_if_due(currval('public.review_record_counts_id_seq'), appended);
    END IF;
    RETURN NULL;
END $$;

CREATE FUNCTION replay_counts_track() RETURNS trigger
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

-- Only `pending` matters here: an item's later states (dispatched, applied, ...) change nothing.
CREATE FUNCTION operation_pending_counts_track() RETURNS trigger
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

-- TRUNCATE fires no row or DELETE trigger: the table's counts go with it. (Nothing in the console
-- truncates these tables, and the runtime role may not; an owner cleaning up by hand might.)
CREATE FUNCTION metric_counts_truncated() RETURNS trigger
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF TG_TABLE_NAME = 'review_records' THEN
        DELETE FROM public.review_record_counts;
    ELSIF TG_TABLE_NAME = 'replays' THEN
        DELETE FROM public.replay_counts;
    ELSIF TG_TABLE_NAME = 'bulk_operation_items' THEN
        DELETE FROM public.operation_pending_counts;
    END IF;
    RETURN NULL;
END $$;

-- No write may slip between the backfill and the triggers: both happen under this lock (it lets
-- readers through), and the migration's transaction commits them together.
LOCK TABLE "review_records", "replays", "bulk_operation_items" IN SHARE ROW EXCLUSIVE MODE;

-- PostgreSQL allows transition tables only on single-event triggers: three per table.
CREATE TRIGGER "review_record_counts_insert" AFTER INSERT ON "review_records"
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION review_record_counts_track();
CREATE TRIGGER "review_record_counts_update" AFTER UPDATE ON "review_records"
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION review_record_counts_track();
CREATE TRIGGER "review_record_counts_delete" AFTER DELETE ON "review_records"
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION review_record_counts_track();

CREATE TRIGGER "replay_counts_insert" AFTER INSERT ON "replays"
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION replay_counts_track();
CREATE TRIGGER "replay_counts_update" AFTER UPDATE ON "replays"
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION replay_counts_track();
CREATE TRIGGER "replay_counts_delete" AFTER DELETE ON "replays"
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION replay_counts_track();

CREATE TRIGGER "operation_pending_counts_insert" AFTER INSERT ON "bulk_operation_items"
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION operation_pending_counts_track();
CREATE TRIGGER "operation_pending_counts_update" AFTER UPDATE ON "bulk_operation_items"
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION operation_pending_counts_track();
CREATE TRIGGER "operation_pending_counts_delete" AFTER DELETE ON "bulk_operation_items"
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION operation_pending_counts_track();

CREATE TRIGGER "review_record_counts_truncate" AFTER TRUNCATE ON "review_records"
    FOR EACH STATEMENT EXECUTE FUNCTION metric_counts_truncated();
CREATE TRIGGER "replay_counts_truncate" AFTER TRUNCATE ON "replays"
    FOR EACH STATEMENT EXECUTE FUNCTION metric_counts_truncated();
CREATE TRIGGER "operation_pending_counts_truncate" AFTER TRUNCATE ON "bulk_operation_items"
    FOR EACH STATEMENT EXECUTE FUNCTION metric_counts_truncated();

INSERT INTO "review_record_counts" ("status", "category", "reason", "n")
SELECT "status", "category", "reason", count(*) FROM "review_records" GROUP BY 1, 2, 3;
INSERT INTO "replay_counts" ("state", "n") SELECT "state", count(*) FROM "replays" GROUP BY 1;
INSERT INTO "operation_pending_counts" ("operation_id", "n")
SELECT "operation_id", count(*) FROM "bulk_operation_items" WHERE "state" = 'pending' GROUP BY 1;

-- The age of the oldest open record (min(first_seen_at) WHERE status = 'open'): no index had
-- first_seen_at, so that was a scan of every open record. Partial: it holds only open records, and
-- first_seen_at never changes, so it adds no write to an update that did not already change the
-- (indexed) status. Not unique, so the drift test does not compare it.
CREATE INDEX "review_records_open_first_seen_at" ON "review_records"("first_seen_at") WHERE "status" = 'open';
