-- The decision log partitioned by month, so a month can be archived and removed without breaking
-- the chain (`review-console archive`; docs/decisions/0023-retention-and-archive.md).
--
-- RANGE (at), one partition per UTC month (decision_log_YYYY_MM) plus decision_log_default, which
-- catches a row whose month has no partition yet, so an append never fails for want of one.
-- Partitions are made for every month that has entries, and ahead: this migration and
-- `review-console migrate`/`archive` make the current month and the next three
-- (decision_log_ensure_partitions).
--
-- Routing happens before the chain trigger runs, by the row's `at` as the INSERT produced it, and
-- PostgreSQL refuses a BEFORE ROW trigger that moves a row to another partition. So `at`'s default
-- is decision_log_next_at(): it takes the head lock (as the trigger does a moment later) and
-- returns the clock. Under that lock no other append can come in between, so the trigger's time,
-- greatest(clock, previous at + 1 microsecond), falls in the routed month, except when the clock
-- passes midnight at the month's end between the two (microseconds): then the trigger keeps the
-- default's time if it is later than the previous entry's (and within a second of the clock).
-- Otherwise, and for a time the session supplied that would change the month, the append is
-- refused (SQLSTATE RC001) rather than routed to the wrong month.
--
-- The primary key must contain the partition key: (seq, at). seq stays unique because only the
-- chain trigger numbers entries, under the head lock (a gapless count; verify checks it).
--
-- The existing rows are copied into the new table once (a few seconds per million entries, under
-- a lock that keeps appends out); their hashes do not change (nothing they cover changes).

LOCK TABLE "decision_log", "decision_log_head" IN ACCESS EXCLUSIVE MODE;

-- What `review-console archive` removed: one row per archived month. `audit verify` of the live
-- chain starts after the last one (its last_seq and last_hash) instead of at the genesis. Written
-- only by the archive command (the owner); append-only like the log.
CREATE TABLE "decision_log_archives" (
    "month" TEXT NOT NULL,
    "first_seq" BIGINT NOT NULL,
    "last_seq" BIGINT NOT NULL,
    "last_hash" TEXT NOT NULL,
    "last_at" TIMESTAMPTZ(6) NOT NULL,
    "entries" BIGINT NOT NULL,
    "file_name" TEXT NOT NULL,
    "file_sha256" TEXT NOT NULL,
    "archived_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "decision_log_archives_pkey" PRIMARY KEY ("month"),
    CONSTRAINT "decision_log_archives_month" CHECK ("month" ~ '^[0-9]{4}-[0-9]{2}$')
);
CREATE UNIQUE INDEX "decision_log_archives_last_seq_key" ON "decision_log_archives"("last_seq");
CREATE TRIGGER "decision_log_archives_append_only" BEFORE UPDATE OR DELETE ON "decision_log_archives"
    FOR EACH ROW EXECUTE FUNCTION decision_log_checkpoints_refuse_change();
CREATE TRIGGER "decision_log_archives_no_truncate" BEFORE TRUNCATE ON "decision_log_archives"
    FOR EACH STATEMENT EXECUTE FUNCTION decision_log_checkpoints_refuse_change();

ALTER TABLE "decision_log" RENAME TO "decision_log_unpartitioned";
ALTER TABLE "decision_log_unpartitioned" RENAME CONSTRAINT "decision_log_pkey" TO "decision_log_unpartitioned_pkey";
DROP INDEX "decision_log_review_id_seq_idx", "decision_log_effect_key_seq_idx", "decision_log_actor_seq_idx",
    "decision_log_action_seq_idx", "decision_log_at_idx", "decision_log_operation_id";

-- The next entry's time for routing: the clock once the head lock is held, so no other append
-- comes in between it and the chain trigger. It does not look for the previous entry's time (that
-- probe, once more per row, made appends half again as expensive): the trigger still makes `at`
-- later than the previous entry's; should that push it past the month's end (entries stamped
-- ahead of the clock), the append is refused with RC001 rather than routed wrongly.
CREATE FUNCTION decision_log_next_at() RETURNS TIMESTAMPTZ
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    PERFORM 1 FROM public.decision_log_head WHERE id = 1 FOR UPDATE;
    RETURN date_trunc('microseconds', clock_timestamp());
END $$;

CREATE TABLE "decision_log" (
    "seq" BIGINT NOT NULL DEFAULT 0,
    "at" TIMESTAMPTZ(6) NOT NULL DEFAULT decision_log_next_at(),
    "actor" TEXT NOT NULL,
    "actor_role" TEXT,
    "action" TEXT NOT NULL,
    "review_id" UUID,
    "effect_key" TEXT,
    "reason" TEXT,
    "details" JSONB,
    "prev_hash" TEXT NOT NULL DEFAULT '',
    "hash" TEXT NOT NULL DEFAULT '',
    CONSTRAINT "decision_log_pkey" PRIMARY KEY ("seq", "at")
) PARTITION BY RANGE ("at");
CREATE TABLE "decision_log_default" PARTITION OF "decision_log" DEFAULT;

-- One month's partition (the month of `month_of`, in UTC), unless it exists. Refused (NULL and a
-- notice) when decision_log_default already holds entries of that month: those would have to be
-- moved first. Each partition also gets the statement-level triggers, which PostgreSQL does not
-- clone: an INSERT naming the partition still moves the head, a TRUNCATE of it is refused.
CREATE FUNCTION decision_log_create_month(month_of TIMESTAMPTZ) RETURNS TEXT
    LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    lo TIMESTAMP := date_trunc('month', month_of AT TIME ZONE 'UTC');
    hi TIMESTAMP := lo + interval '1 month';
    name TEXT := 'decision_log_' || to_char(lo, 'YYYY_MM');
BEGIN
    IF to_regclass('public.' || quote_ident(name)) IS NOT NULL THEN
        RETURN NULL;
    END IF;
    IF EXISTS (SELECT 1 FROM public.decision_log_default d
                WHERE d.at >= lo AT TIME ZONE 'UTC' AND d.at < hi AT TIME ZONE 'UTC') THEN
        RAISE NOTICE 'decision_log_default holds entries of %; no partition made for that month', to_char(lo, 'YYYY-MM');
        RETURN NULL;
    END IF;
    EXECUTE format('CREATE TABLE public.%I PARTITION OF public.decision_log FOR VALUES FROM (%L) TO (%L)',
        name, to_char(lo, 'YYYY-MM-DD HH24:MI:SS') || '+00', to_char(hi, 'YYYY-MM-DD HH24:MI:SS') || '+00');
    EXECUTE format('CREATE TRIGGER decision_log_chain_flush AFTER INSERT ON public.%I
        FOR EACH STATEMENT EXECUTE FUNCTION public.decision_log_chain_flush()', name);
    EXECUTE format('CREATE TRIGGER decision_log_no_truncate BEFORE TRUNCATE ON public.%I
        FOR EACH STATEMENT EXECUTE FUNCTION public.decision_log_refuse_change()', name);
    RETURN name;
END $$;

-- The current month and `months_ahead` more. Returns the partitions it made.
CREATE FUNCTION decision_log_ensure_partitions(months_ahead INTEGER DEFAULT 3) RETURNS SETOF TEXT
    LANGUAGE sql SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT made FROM (
        SELECT public.decision_log_create_month(now() + make_interval(months => i)) AS made
          FROM generate_series(0, months_ahead) AS i
    ) AS m WHERE made IS NOT NULL
$$;

-- Partitions for every month the existing entries fall in, then the copy (seq order keeps the
-- primary key's pages in chain order, as appends would have).
SELECT decision_log_create_month(m)
  FROM (SELECT DISTINCT date_trunc('month', at, 'UTC') AS m FROM "decision_log_unpartitioned") AS months
 ORDER BY m;
SELECT decision_log_ensure_partitions(3);
INSERT INTO "decision_log" SELECT * FROM "decision_log_unpartitioned" ORDER BY seq;
DROP TABLE "decision_log_unpartitioned";

-- Indexes on the parent are made on every partition, present and future.
CREATE INDEX "decision_log_review_id_seq_idx" ON "decision_log"("review_id", "seq");
CREATE INDEX "decision_log_effect_key_seq_idx" ON "decision_log"("effect_key", "seq");
CREATE INDEX "decision_log_actor_seq_idx" ON "decision_log"("actor", "seq");
CREATE INDEX "decision_log_action_seq_idx" ON "decision_log"("action", "seq");
CREATE INDEX "decision_log_at_idx" ON "decision_log"("at");
CREATE INDEX "decision_log_operation_id" ON "decision_log"((("details"->>'operationId')), "seq")
    WHERE "details" ? 'operationId';

-- The chain, as in 20261201000000_decision_log_trust, with three changes: the probe for the last
-- entry looks from a month before the row's routed month upward first (it skips the partitions of
-- older months; open upward, so what it finds is still the latest entry); when the log holds no
-- entry at or after the head (every entry up to it was archived), the entry chains to the head
-- itself, whose hash is the last archived one; and the time must stay in the routed month.
CREATE OR REPLACE FUNCTION decision_log_chain() RETURNS trigger
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp SET enable_seqscan = off AS $$
DECLARE
    head_seq BIGINT;
    head_hash TEXT;
    previous_seq BIGINT;
    previous_hash TEXT;
    previous_at TIMESTAMPTZ;
    chained_at TIMESTAMPTZ;
BEGIN
    SELECT last_seq, last_hash INTO head_seq, head_hash FROM public.decision_log_head WHERE id = 1 FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'decision_log_head is missing' USING ERRCODE = 'insufficient_privilege';
    END IF;
    SELECT seq, hash, at INTO previous_seq, previous_hash, previous_at
      FROM public.decision_log WHERE at >= date_trunc('month', NEW.at, 'UTC') - interval '32 days'
     ORDER BY at DESC LIMIT 1;
    IF previous_seq IS NULL THEN
        SELECT seq, hash, at INTO previous_seq, previous_hash, previous_at
          FROM public.decision_log ORDER BY at DESC LIMIT 1;
    END IF;
    IF previous_seq < head_seq THEN
        SELECT seq, hash, at INTO previous_seq, previous_hash, previous_at
          FROM public.decision_log ORDER BY seq DESC LIMIT 1;
    END IF;
    IF previous_seq IS NULL OR previous_seq < head_seq THEN
        -- Nothing live at or after the head: the entries up to it were archived (or there are
        -- none: the head is then 0 and the genesis hash).
        previous_seq := head_seq;
        previous_hash := head_hash;
        SELECT a.last_at INTO previous_at FROM public.decision_log_archives a
         WHERE a.last_seq = head_seq;
    END IF;
    NEW.seq := previous_seq + 1;
    NEW.prev_hash := previous_hash;
    chained_at := greatest(date_trunc('microseconds', clock_timestamp()), previous_at + interval '1 microsecond');
    IF date_trunc('month', chained_at, 'UTC') IS DISTINCT FROM date_trunc('month', NEW.at, 'UTC') THEN
        -- The row was routed by NEW.at. The default computed it under the head lock a moment ago:
        -- the clock passed a month's end since. Keep it if it is still a valid time for the entry.
        IF (previous_at IS NULL OR NEW.at > previous_at)
           AND NEW.at BETWEEN chained_at - interval '1 second' AND chained_at + interval '1 second' THEN
            chained_at := NEW.at;
        ELSE
            RAISE EXCEPTION 'decision_log entry routed to the month of % cannot take the time % (retry the append)',
                NEW.at, chained_at USING ERRCODE = 'RC001';
        END IF;
    END IF;
    NEW.at := chained_at;
    NEW.hash := public.decision_log_entry_hash(NEW.prev_hash, NEW.seq, NEW.at, NEW.actor, NEW.actor_role,
        NEW.action, NEW.review_id, NEW.effect_key, NEW.reason, NEW.details);
    RETURN NEW;
END $$;

-- As before; a statement that inserted nothing (or a log emptied by archiving) leaves the head.
CREATE OR REPLACE FUNCTION decision_log_chain_flush() RETURNS trigger
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp SET enable_seqscan = off AS $$
DECLARE
    head_seq BIGINT;
    new_seq BIGINT;
    new_hash TEXT;
BEGIN
    SELECT h.last_seq INTO head_seq FROM public.decision_log_head h WHERE h.id = 1;
    SELECT l.seq, l.hash INTO new_seq, new_hash FROM public.decision_log l ORDER BY l.at DESC LIMIT 1;
    IF new_seq < head_seq THEN
        SELECT l.seq, l.hash INTO new_seq, new_hash FROM public.decision_log l ORDER BY l.seq DESC LIMIT 1;
    END IF;
    IF new_seq > head_seq THEN
        UPDATE public.decision_log_head h SET last_seq = new_seq, last_hash = new_hash
         WHERE h.id = 1 AND h.last_seq < new_seq;
    END IF;
    RETURN NULL;
END $$;

-- Row triggers on the parent are cloned to every partition, present and future: UPDATE and
-- DELETE are refused on each, and an INSERT naming a partition is chained like any other. The
-- month partitions got their statement triggers from decision_log_create_month(); they come after
-- the copy above, so the copied entries keep their seq, time and hashes.
CREATE TRIGGER "decision_log_chain" BEFORE INSERT ON "decision_log"
    FOR EACH ROW EXECUTE FUNCTION decision_log_chain();
CREATE TRIGGER "decision_log_chain_flush" AFTER INSERT ON "decision_log"
    FOR EACH STATEMENT EXECUTE FUNCTION decision_log_chain_flush();
CREATE TRIGGER "decision_log_append_only" BEFORE UPDATE OR DELETE ON "decision_log"
    FOR EACH ROW EXECUTE FUNCTION decision_log_refuse_change();
CREATE TRIGGER "decision_log_no_truncate" BEFORE TRUNCATE ON "decision_log"
    FOR EACH STATEMENT EXECUTE FUNCTION decision_log_refuse_change();
CREATE TRIGGER "decision_log_no_truncate" BEFORE TRUNCATE ON "decision_log_default"
    FOR EACH STATEMENT EXECUTE FUNCTION decision_log_refuse_change();
CREATE TRIGGER "decision_log_chain_flush" AFTER INSERT ON "decision_log_default"
    FOR EACH STATEMENT EXECUTE FUNCTION decision_log_chain_flush();
ANALYZE "decision_log";
