-- Bulk operations (docs/operations.md, docs/decisions/0008-bulk-operations.md): one action (replay,
-- cancel, note) on a selection of review records that is frozen when the operation is created,
-- dry-run, confirmed, and then dispatched record by record at a set rate, with a canary,
-- auto-pause, pause, resume and abort. All of its state is here, so a console that stops in the
-- middle resumes where it was: an item's state changes in the transaction that acts on its record.

CREATE TYPE "OperationAction" AS ENUM ('replay', 'cancel', 'note');

-- planned: frozen, waiting for its dry run and confirmation. running: dispatching.
-- awaiting-continue: the canary was dispatched; its replays run, nothing more is dispatched until
-- an owner continues. paused: nothing is dispatched and its unclaimed replays are held back.
-- completed: every item has its outcome. aborted: stopped for good; undispatched items are left.
CREATE TYPE "OperationState" AS ENUM ('planned', 'running', 'awaiting-continue', 'paused', 'completed', 'aborted');

-- pending: not dispatched yet. dispatched: its action was taken (a replay waits for its outcome).
-- The rest are final: a replay's outcome (applied, duplicate-suppressed, held-again, failed),
-- done (a cancel or a note was taken), skipped (refused at dispatch: the record changed since the
-- freeze, or the action no longer fits it), cancelled (an owner cancelled the record while its
-- replay waited), withdrawn (the operation was aborted while its replay waited: the record is
-- open again), not-dispatched (the operation was aborted before its turn).
CREATE TYPE "OperationItemState" AS ENUM ('pending', 'dispatched', 'applied', 'duplicate-suppressed', 'held-again', 'failed', 'done', 'skipped', 'cancelled', 'withdrawn', 'not-dispatched');

CREATE TABLE "bulk_operations" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "seq" BIGSERIAL NOT NULL,
    "action" "OperationAction" NOT NULL,
    "state" "OperationState" NOT NULL DEFAULT 'planned',
    "reason" TEXT NOT NULL,
    -- How the records were chosen ({"type":"ids"|"filter"|"group", ...}), as the person asked.
    "selection" JSONB NOT NULL,
    "total" INTEGER NOT NULL,
    "created_by" TEXT NOT NULL,
    "created_role" "Role" NOT NULL,
    "confirmed_by" TEXT,
    -- A replay at a time: nothing is dispatched before it.
    "run_at" TIMESTAMPTZ(3),
    "rate_per_second" DOUBLE PRECISION NOT NULL,
    "canary_size" INTEGER NOT NULL DEFAULT 0,
    -- Set when an owner continued after the canary (or there was none to wait for).
    "canary_passed" BOOLEAN NOT NULL DEFAULT false,
    -- Auto-pause when auto_pause_held_again / auto_pause_outcomes passes this share (0..1), once
    -- auto_pause_outcomes >= the minimum.
    "auto_pause_threshold" DOUBLE PRECISION,
    "auto_pause_min_outcomes" INTEGER NOT NULL DEFAULT 20,
    "pause_reason" TEXT,
    -- The last dry run: {"at", "counts"}; confirming names its time, so nobody confirms numbers
    -- they did not see.
    "dry_run" JSONB,
    "dry_run_at" TIMESTAMPTZ(3),
    "dispatched" INTEGER NOT NULL DEFAULT 0,
    "outcomes" INTEGER NOT NULL DEFAULT 0,
    "held_again" INTEGER NOT NULL DEFAULT 0,
    -- What auto-pause judges: the outcomes (and those held again) since the operation was last
    -- confirmed or resumed, so a resume after an auto-pause starts a fresh count.
    "auto_pause_outcomes" INTEGER NOT NULL DEFAULT 0,
    "auto_pause_held_again" INTEGER NOT NULL DEFAULT 0,
    -- The rate limiter's window: dispatches since window_started_at may not exceed
    -- rate * elapsed. Reset on confirm, resume and continue.
    "window_started_at" TIMESTAMPTZ(3),
    "window_dispatched" INTEGER NOT NULL DEFAULT 0,
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "confirmed_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "bulk_operations_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "bulk_operations_rate_positive" CHECK ("rate_per_second" > 0),
    CONSTRAINT "bulk_operations_threshold_share" CHECK ("auto_pause_threshold" IS NULL OR ("auto_pause_threshold" > 0 AND "auto_pause_threshold" <= 1))
);
CREATE UNIQUE INDEX "bulk_operations_seq_key" ON "bulk_operations"("seq");
CREATE INDEX "bulk_operations_state_seq_idx" ON "bulk_operations"("state", "seq");

-- One frozen record of an operation. `position` is the dispatch order: the records' own order
-- (oldest first), except that within one sequenceKey the sequences are put in ascending order
-- over that key's positions, so a key's replays are dispatched in sequence order.
CREATE TABLE "bulk_operation_items" (
    "operation_id" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "review_id" UUID NOT NULL,
    -- The record's version at the freeze: a record that changed since is skipped, never overridden.
    "frozen_version" INTEGER NOT NULL,
    "sequence_key" TEXT,
    "sequence" BIGINT,
    "effect_key" TEXT,
    "state" "OperationItemState" NOT NULL DEFAULT 'pending',
    -- The last dry run's verdict for this record (docs/operations.md).
    "verdict" TEXT,
    "verdict_detail" TEXT,
    "replay_id" UUID,
    "detail" TEXT,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "bulk_operation_items_pkey" PRIMARY KEY ("operation_id", "position")
);
CREATE UNIQUE INDEX "bulk_operation_items_operation_id_review_id_key" ON "bulk_operation_items"("operation_id", "review_id");
CREATE INDEX "bulk_operation_items_operation_id_state_position_idx" ON "bulk_operation_items"("operation_id", "state", "position");
CREATE INDEX "bulk_operation_items_operation_id_verdict_position_idx" ON "bulk_operation_items"("operation_id", "verdict", "position");
CREATE INDEX "bulk_operation_items_review_id_idx" ON "bulk_operation_items"("review_id");
CREATE INDEX "bulk_operation_items_replay_id_idx" ON "bulk_operation_items"("replay_id");
ALTER TABLE "bulk_operation_items" ADD CONSTRAINT "bulk_operation_items_operation_id_fkey" FOREIGN KEY ("operation_id") REFERENCES "bulk_operations"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "bulk_operation_items" ADD CONSTRAINT "bulk_operation_items_review_id_fkey" FOREIGN KEY ("review_id") REFERENCES "review_records"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- The claim's per-key order check (no earlier replay of the key unfinished) looks up the active
-- replays of one key; with a large operation's replays waiting, a scan of all of them per
-- candidate would make every claim slow. Partial, so not declared in schema.prisma (not unique,
-- so the drift test does not compare it).
CREATE INDEX "replays_active_sequence_key" ON "replays"("sequence_key", "sequence")
    WHERE "state" IN ('scheduled', 'claimed');

-- A replay an operation scheduled: the claim holds it back while its operation is paused.
ALTER TABLE "replays" ADD COLUMN "operation_id" UUID;
CREATE INDEX "replays_operation_id_state_idx" ON "replays"("operation_id", "state");
ALTER TABLE "replays" ADD CONSTRAINT "replays_operation_id_fkey" FOREIGN KEY ("operation_id") REFERENCES "bulk_operations"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Per kind: whether a held sequence-gap record whose missing predecessor was applied (it is
-- "ready") is replayed automatically. Off unless an owner turns it on (logged).
CREATE TABLE "kind_settings" (
    "kind" TEXT NOT NULL,
    "auto_replay_ready" BOOLEAN NOT NULL DEFAULT false,
    "updated_by" TEXT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "kind_settings_pkey" PRIMARY KEY ("kind")
);

-- Open gap records by key: readiness is `sequence <= last_sequence + 1` of their key, checked by
-- joining sequence_state; this keeps that join (and the auto-replay scan) to the held records.
-- Partial, so Prisma cannot declare it; it is not unique, so the drift test does not compare it.
CREATE INDEX "review_records_open_gaps" ON "review_records"("sequence_key", "sequence")
    WHERE "status" = 'open' AND "category" = 'sequence-gap';

-- An operation's page lists its decision-log entries; each carries details.operationId (inside
-- the hashed content). An expression index, which Prisma cannot declare; not unique.
CREATE INDEX "decision_log_operation_id" ON "decision_log"((("details"->>'operationId')), "seq")
    WHERE "details" ? 'operationId';
