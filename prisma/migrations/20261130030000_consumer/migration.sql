-- The consumer runtime's own state (lib/consumer, docs/decisions/0007-consumer-runtime.md): the
-- failed attempts of each message, kept in PostgreSQL so that bounded retry survives a worker
-- restart. Written in Prisma's conventions (docs/decisions/0002-sql-first-migrations.md).
--
-- One row per (consumer, attempt key): `consumer` is the logical worker (every process of it
-- shares the rows), `attempt_key` is `message:<envelope id>` for a transport delivery and
-- `replay:<replay id>` for a controlled replay, so an owner's replay starts with a fresh count.
-- `failed_attempts` counts finished failed attempts; `next_attempt_at` holds the retry back until
-- its delay has passed (also for a fresh process that reads the message again); `routed_reason`
-- is set once the message went to review, so a redelivery is routed again and never re-run.
-- The row is deleted in the transaction that applies the effect.
CREATE TABLE "consumer_attempts" (
    "consumer" TEXT NOT NULL,
    "attempt_key" TEXT NOT NULL,
    "message_id" TEXT,
    "effect_key" TEXT,
    "failed_attempts" INTEGER NOT NULL DEFAULT 0,
    "last_reason" TEXT,
    "last_error" TEXT,
    "next_attempt_at" TIMESTAMPTZ(3),
    "routed_reason" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "consumer_attempts_pkey" PRIMARY KEY ("consumer", "attempt_key")
);
