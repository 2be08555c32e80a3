-- The decision log's chain trusts nothing a database session can set.
--
-- Until now the chaining trigger carried the head from row to row in the session setting
-- review_console.log_head, and any session may SET that: a role allowed only to INSERT could
-- hand the trigger a forged seq and prev_hash. Now the trigger reads no setting at all: under the
-- head row's lock it reads the log's last entry and chains the new entry to it. Rows inserted
-- earlier by the same statement are visible to the trigger's queries (a VOLATILE plpgsql function
-- takes a new snapshot per query), so a multi-row INSERT chains row by row, one index probe per
-- row: O(n), as the freeze of a bulk operation (100,000 entries in one INSERT) needs.
--
-- Which index finds the last entry matters. The primary key's last leaf is where a rolled-back
-- append leaves its dead entries: seq numbers are reused (a hole would be indistinguishable from a
-- deleted entry), so after a rollback of k appends every `ORDER BY seq DESC LIMIT 1` walks back
-- over those k dead entries until VACUUM removes them; a retried 100,000-entry freeze went
-- quadratic. So `at` is made strictly increasing with seq, and the last entry is found through
-- the `at` index instead: dead entries there are older than every later append, so only the first
-- probe after a rollback passes them. That probe is trusted only if it lands at or after the head
-- (rows after the head are this statement's own, chained by this trigger, hence in `at` order);
-- otherwise (older entries with a later or equal `at`, written before this migration or edited by
-- hand) the primary key answers.
--
-- A plpgsql function plans each query once per session and keeps the plan. Planned while the log
-- is tiny (a few rows, just vacuumed), `ORDER BY .. LIMIT 1` becomes a sequential scan and a sort,
-- and kept for a 100,000-row INSERT that is quadratic (20,000 rows took 80 s instead of 1 s).
-- enable_seqscan = off for the chain's functions keeps every probe on its index.
--
-- Both chain functions are SECURITY DEFINER: the app's runtime role has only INSERT/SELECT on
-- decision_log and SELECT on decision_log_head, yet the trigger must lock the head (FOR UPDATE
-- needs UPDATE rights) and move it. Their search_path is pinned, with pg_temp last, and every
-- relation is schema-qualified: a session cannot shadow decision_log or decision_log_head with a
-- temporary table of its own (pg_temp is searched first for relations unless named last).

CREATE OR REPLACE FUNCTION decision_log_chain() RETURNS trigger
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp SET enable_seqscan = off AS $$
DECLARE
    head_seq BIGINT;
    previous_seq BIGINT;
    previous_hash TEXT;
    previous_at TIMESTAMPTZ;
BEGIN
    -- Orders appends. Repeating it for every row of a statement is cheap: the row is already
    -- locked by this transaction.
    SELECT last_seq INTO head_seq FROM public.decision_log_head WHERE id = 1 FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'decision_log_head is missing' USING ERRCODE = 'insufficient_privilege';
    END IF;
    SELECT seq, hash, at INTO previous_seq, previous_hash, previous_at
      FROM public.decision_log ORDER BY at DESC LIMIT 1;
    IF previous_seq < head_seq THEN
        SELECT seq, hash, at INTO previous_seq, previous_hash, previous_at
          FROM public.decision_log ORDER BY seq DESC LIMIT 1;
    END IF;
    IF previous_seq IS NULL THEN
        previous_seq := 0;
        previous_hash := repeat('0', 64);
    END IF;
    NEW.seq := previous_seq + 1;
    NEW.prev_hash := previous_hash;
    -- Later than the entry before, even if the clock steps back or two appends fall into one
    -- microsecond: `at` follows `seq`. greatest() ignores the NULL of the first entry.
    NEW.at := greatest(date_trunc('microseconds', clock_timestamp()), previous_at + interval '1 microsecond');
    NEW.hash := public.decision_log_entry_hash(NEW.prev_hash, NEW.seq, NEW.at, NEW.actor, NEW.actor_role,
        NEW.action, NEW.review_id, NEW.effect_key, NEW.reason, NEW.details);
    RETURN NEW;
END $$;

-- Once per INSERT statement: the head moves to the last entry, i.e. the last one this statement
-- appended (the head lock is still held). A statement that inserted nothing leaves it. The last
-- entry is found as in decision_log_chain(), for the same reason.
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
    -- The condition is repeated in the UPDATE: a statement that inserted nothing holds no lock,
    -- and another append may have moved the head meanwhile.
    IF new_seq > head_seq THEN
        UPDATE public.decision_log_head h SET last_seq = new_seq, last_hash = new_hash
         WHERE h.id = 1 AND h.last_seq < new_seq;
    END IF;
    RETURN NULL;
END $$;

-- Unchanged rule (forward only, only from inside the chain's triggers, only to an entry that
-- exists with that hash), now with the same pinned search_path.
CREATE OR REPLACE FUNCTION decision_log_head_guard() RETURNS trigger
    LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF pg_trigger_depth() < 2 OR NEW.id <> OLD.id OR NEW.last_seq <= OLD.last_seq
       OR NOT EXISTS (SELECT 1 FROM public.decision_log WHERE seq = NEW.last_seq AND hash = NEW.last_hash) THEN
        RAISE EXCEPTION 'decision_log_head moves only through appends to decision_log'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END $$;

-- Signed checkpoints of the head (`review-console audit checkpoint`, lib/audit/checkpoint.ts).
-- The copy that counts is the signed line kept outside the database; this table is a
-- convenience for the console's page, so it is append-only like the log but not trusted.
CREATE TABLE "decision_log_checkpoints" (
    "id" BIGSERIAL NOT NULL,
    "seq" BIGINT NOT NULL,
    "hash" TEXT NOT NULL,
    "at" TIMESTAMPTZ(6) NOT NULL,
    "signed_at" TIMESTAMPTZ(6) NOT NULL,
    "key_id" TEXT NOT NULL,
    "signature" TEXT NOT NULL,
    CONSTRAINT "decision_log_checkpoints_pkey" PRIMARY KEY ("id")
);

CREATE FUNCTION decision_log_checkpoints_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'decision_log_checkpoints is append-only: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER "decision_log_checkpoints_append_only" BEFORE UPDATE OR DELETE ON "decision_log_checkpoints"
    FOR EACH ROW EXECUTE FUNCTION decision_log_checkpoints_refuse_change();
CREATE TRIGGER "decision_log_checkpoints_no_truncate" BEFORE TRUNCATE ON "decision_log_checkpoints"
    FOR EACH STATEMENT EXECUTE FUNCTION decision_log_checkpoints_refuse_change();
