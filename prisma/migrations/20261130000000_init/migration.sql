-- Review Console: initial model. Hand-written in Prisma's conventions (see
-- docs/decisions/0002-sql-first-migrations.md); the drift test compares it with schema.prisma.

CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TYPE "ReviewStatus" AS ENUM ('open', 'replay-scheduled', 'replaying', 'resolved', 'cancelled');
CREATE TYPE "ReviewCategory" AS ENUM ('manual-review', 'sequence-gap', 'effect-result-unknown');
CREATE TYPE "JournalState" AS ENUM ('started', 'applied', 'unknown', 'cancelled');
CREATE TYPE "ReplayState" AS ENUM ('scheduled', 'claimed', 'applied', 'duplicate-suppressed', 'routed', 'failed', 'cancelled');
CREATE TYPE "Role" AS ENUM ('owner', 'support', 'auditor', 'admin', 'consumer');

CREATE TABLE "review_records" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "seq" BIGSERIAL NOT NULL,
    "status" "ReviewStatus" NOT NULL DEFAULT 'open',
    "category" "ReviewCategory" NOT NULL,
    "reason" TEXT NOT NULL,
    "required_check" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "report_count" INTEGER NOT NULL DEFAULT 1,
    "last_error" TEXT,
    "message" JSON NOT NULL,
    "message_key" TEXT NOT NULL,
    "message_id" TEXT,
    "kind" TEXT,
    "effect_key" TEXT,
    "sequence_key" TEXT,
    "sequence" BIGINT,
    "payload_schema" TEXT,
    "source" JSONB,
    "version" INTEGER NOT NULL DEFAULT 1,
    "first_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "review_records_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "review_records_seq_key" ON "review_records"("seq");
CREATE INDEX "review_records_status_seq_idx" ON "review_records"("status", "seq");
CREATE INDEX "review_records_category_seq_idx" ON "review_records"("category", "seq");
CREATE INDEX "review_records_reason_seq_idx" ON "review_records"("reason", "seq");
CREATE INDEX "review_records_kind_seq_idx" ON "review_records"("kind", "seq");
CREATE INDEX "review_records_sequence_key_seq_idx" ON "review_records"("sequence_key", "seq");
CREATE INDEX "review_records_effect_key_seq_idx" ON "review_records"("effect_key", "seq");
CREATE INDEX "review_records_message_key_idx" ON "review_records"("message_key");

-- One active record per message: a second report of a message whose record is not finished
-- updates that record (ON CONFLICT on this index) instead of creating another.
-- Partial, so Prisma cannot declare it; the drift test knows it by name.
CREATE UNIQUE INDEX "review_records_active_message_key"
    ON "review_records"("message_key")
    WHERE "status" IN ('open', 'replay-scheduled', 'replaying');

-- Free-text search (`q`) over the record id and the raw message (id, keys, payload). The two
-- commonest JSON escapes are undone so that `he said "hi"` or `C:\temp` match as typed.
CREATE FUNCTION review_search_text(record_id UUID, message JSON) RETURNS TEXT
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT lower(record_id::text || ' ' || replace(replace(message::text, '\\', '\'), '\"', '"')) $$;
CREATE INDEX "review_records_search_trgm"
    ON "review_records" USING gin (review_search_text("id", "message") gin_trgm_ops);

-- The message as received is evidence: it is never rewritten (corrections are revisions).
CREATE FUNCTION review_records_keep_message() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.message::text IS DISTINCT FROM OLD.message::text THEN
        RAISE EXCEPTION 'review_records.message is immutable (record %)', OLD.id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER "review_records_keep_message" BEFORE UPDATE OF "message" ON "review_records"
    FOR EACH ROW EXECUTE FUNCTION review_records_keep_message();

CREATE TABLE "review_revisions" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "review_id" UUID NOT NULL,
    "number" INTEGER NOT NULL,
    "envelope" JSONB NOT NULL,
    "reason" TEXT NOT NULL,
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "review_revisions_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "review_revisions_review_id_fkey" FOREIGN KEY ("review_id")
        REFERENCES "review_records"("id") ON DELETE RESTRICT ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "review_revisions_review_id_number_key" ON "review_revisions"("review_id", "number");

CREATE TABLE "review_history" (
    "id" BIGSERIAL NOT NULL,
    "review_id" UUID NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actor" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "from_status" "ReviewStatus",
    "to_status" "ReviewStatus",
    "reason" TEXT,
    "details" JSONB,
    CONSTRAINT "review_history_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "review_history_review_id_fkey" FOREIGN KEY ("review_id")
        REFERENCES "review_records"("id") ON DELETE RESTRICT ON UPDATE CASCADE
);
CREATE INDEX "review_history_review_id_id_idx" ON "review_history"("review_id", "id");

CREATE TABLE "effect_journal" (
    "effect_key" TEXT NOT NULL,
    "state" "JournalState" NOT NULL,
    "message_id" TEXT,
    "kind" TEXT,
    "sequence_key" TEXT,
    "sequence" BIGINT,
    "provider_ref" TEXT,
    "lease_expires_at" TIMESTAMPTZ(3),
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "effect_journal_pkey" PRIMARY KEY ("effect_key")
);
CREATE INDEX "effect_journal_sequence_key_sequence_idx" ON "effect_journal"("sequence_key", "sequence");

CREATE TABLE "sequence_state" (
    "sequence_key" TEXT NOT NULL,
    "last_sequence" BIGINT NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "sequence_state_pkey" PRIMARY KEY ("sequence_key")
);

CREATE TABLE "replays" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "review_id" UUID NOT NULL,
    "revision_number" INTEGER NOT NULL,
    "state" "ReplayState" NOT NULL DEFAULT 'scheduled',
    "run_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "sequence_key" TEXT,
    "sequence" BIGINT,
    "claimed_by" TEXT,
    "claim_expires_at" TIMESTAMPTZ(3),
    "claims" INTEGER NOT NULL DEFAULT 0,
    "detail" TEXT,
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),
    CONSTRAINT "replays_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "replays_review_id_fkey" FOREIGN KEY ("review_id")
        REFERENCES "review_records"("id") ON DELETE RESTRICT ON UPDATE CASCADE
);
CREATE INDEX "replays_state_run_at_idx" ON "replays"("state", "run_at");
CREATE INDEX "replays_review_id_idx" ON "replays"("review_id");

CREATE TABLE "decision_log" (
    "seq" BIGINT NOT NULL DEFAULT 0,
    "at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actor" TEXT NOT NULL,
    "actor_role" TEXT,
    "action" TEXT NOT NULL,
    "review_id" UUID,
    "effect_key" TEXT,
    "reason" TEXT,
    "details" JSONB,
    "prev_hash" TEXT NOT NULL DEFAULT '',
    "hash" TEXT NOT NULL DEFAULT '',
    CONSTRAINT "decision_log_pkey" PRIMARY KEY ("seq")
);
CREATE INDEX "decision_log_review_id_seq_idx" ON "decision_log"("review_id", "seq");
CREATE INDEX "decision_log_effect_key_seq_idx" ON "decision_log"("effect_key", "seq");
CREATE INDEX "decision_log_actor_seq_idx" ON "decision_log"("actor", "seq");
CREATE INDEX "decision_log_action_seq_idx" ON "decision_log"("action", "seq");
CREATE INDEX "decision_log_at_idx" ON "decision_log"("at");

CREATE TABLE "decision_log_head" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "last_seq" BIGINT NOT NULL DEFAULT 0,
    "last_hash" TEXT NOT NULL,
    CONSTRAINT "decision_log_head_pkey" PRIMARY KEY ("id")
);
INSERT INTO "decision_log_head" ("id", "last_seq", "last_hash") VALUES (1, 0, repeat('0', 64));

-- The content hash of one entry. Both the chaining trigger and `audit verify` call this one
-- definition, so they cannot disagree. quote_nullable keeps NULL and '' apart.
CREATE FUNCTION decision_log_entry_hash(
    prev_hash TEXT, seq BIGINT, at TIMESTAMPTZ, actor TEXT, actor_role TEXT, action TEXT,
    review_id UUID, effect_key TEXT, reason TEXT, details JSONB
) RETURNS TEXT LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT encode(sha256(convert_to(concat_ws('|',
        prev_hash,
        seq::text,
        to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
        quote_nullable(actor),
        quote_nullable(actor_role),
        quote_nullable(action),
        quote_nullable(review_id::text),
        quote_nullable(effect_key),
        quote_nullable(reason),
        quote_nullable(details::text)
    ), 'UTF8')), 'hex')
$$;

-- Appends are ordered by the head row's lock. Callers write their log entry as the last
-- statement of a transaction, so the lock is held only from that insert to the commit.
CREATE FUNCTION decision_log_chain() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    head RECORD;
BEGIN
    SELECT last_seq, last_hash INTO head FROM decision_log_head WHERE id = 1 FOR UPDATE;
    NEW.seq := head.last_seq + 1;
    NEW.at := date_trunc('microseconds', clock_timestamp());
    NEW.prev_hash := head.last_hash;
    NEW.hash := decision_log_entry_hash(NEW.prev_hash, NEW.seq, NEW.at, NEW.actor, NEW.actor_role,
        NEW.action, NEW.review_id, NEW.effect_key, NEW.reason, NEW.details);
    UPDATE decision_log_head SET last_seq = NEW.seq, last_hash = NEW.hash WHERE id = 1;
    RETURN NEW;
END $$;
CREATE TRIGGER "decision_log_chain" BEFORE INSERT ON "decision_log"
    FOR EACH ROW EXECUTE FUNCTION decision_log_chain();

CREATE FUNCTION decision_log_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'decision_log is append-only: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER "decision_log_append_only" BEFORE UPDATE OR DELETE ON "decision_log"
    FOR EACH ROW EXECUTE FUNCTION decision_log_refuse_change();
CREATE TRIGGER "decision_log_no_truncate" BEFORE TRUNCATE ON "decision_log"
    FOR EACH STATEMENT EXECUTE FUNCTION decision_log_refuse_change();
-- The head moves only forward, one entry at a time, and only from inside the chaining trigger
-- (trigger depth 2): rewinding it by hand to hide a deleted tail is refused.
CREATE TRIGGER "decision_log_head_no_delete" BEFORE DELETE OR TRUNCATE ON "decision_log_head"
    FOR EACH STATEMENT EXECUTE FUNCTION decision_log_refuse_change();
CREATE FUNCTION decision_log_head_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF pg_trigger_depth() < 2 OR NEW.id <> OLD.id OR NEW.last_seq <> OLD.last_seq + 1 THEN
        RAISE EXCEPTION 'decision_log_head moves only through appends to decision_log'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER "decision_log_head_forward_only" BEFORE UPDATE ON "decision_log_head"
    FOR EACH ROW EXECUTE FUNCTION decision_log_head_guard();

CREATE TABLE "users" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "email" TEXT NOT NULL,
    "role" "Role" NOT NULL,
    "password_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "disabled_at" TIMESTAMPTZ(3),
    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "users_email_key" ON "users"("email");

CREATE TABLE "api_tokens" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "name" TEXT NOT NULL,
    "role" "Role" NOT NULL,
    "token_hash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    CONSTRAINT "api_tokens_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "api_tokens_token_hash_key" ON "api_tokens"("token_hash");
