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

-- The two steps of a message's transaction that every message takes, as functions: their
-- statements' plans are cached per connection (a statement sent as text is planned every time),
-- and each is one call in the runtime's one round trip. The decision itself stays in TypeScript
-- (lib/contract/decide.ts); these only take the lock, read, and write the bookkeeping.

-- BEGIN has been sent. Locks the key's row (INSERT .. ON CONFLICT DO NOTHING creates it at 0 when
-- the key is new, then SELECT .. FOR UPDATE), then reads what the decision needs. VOLATILE: each
-- statement takes a fresh snapshot, so the reads after the lock see what the lock's previous
-- holder committed (one statement would read from a snapshot taken before it waited for the lock),
-- and the second SELECT sees a row that a concurrent INSERT committed while ours waited on it.
CREATE FUNCTION consumer_lock_key(p_sequence_key TEXT, p_effect_key TEXT, p_consumer TEXT, p_attempt_key TEXT)
RETURNS TABLE (
    o_last_sequence BIGINT,
    o_journal_state TEXT,
    o_journal_lease TIMESTAMPTZ,
    o_next_lease TIMESTAMPTZ,
    o_failed_attempts INTEGER,
    o_next_attempt_at TIMESTAMPTZ,
    o_routed_reason TEXT,
    o_now TIMESTAMPTZ
) LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    -- The row exists for every key seen before: try the lock first, create the row only if not.
    SELECT s.last_sequence INTO o_last_sequence FROM sequence_state s
     WHERE s.sequence_key = p_sequence_key FOR UPDATE;
    IF NOT FOUND THEN
        INSERT INTO sequence_state (sequence_key) VALUES (p_sequence_key) ON CONFLICT (sequence_key) DO NOTHING;
        SELECT s.last_sequence INTO o_last_sequence FROM sequence_state s
         WHERE s.sequence_key = p_sequence_key FOR UPDATE;
    END IF;
    SELECT j.state::text, j.lease_expires_at INTO o_journal_state, o_journal_lease
      FROM effect_journal j WHERE j.effect_key = p_effect_key;
    SELECT max(f.lease_expires_at) INTO o_next_lease FROM effect_journal f
     WHERE f.sequence_key = p_sequence_key AND f.sequence = o_last_sequence + 1 AND f.state = 'started';
    SELECT a.failed_attempts, a.next_attempt_at, a.routed_reason
      INTO o_failed_attempts, o_next_attempt_at, o_routed_reason
      FROM consumer_attempts a WHERE a.consumer = p_consumer AND a.attempt_key = p_attempt_key;
    o_now := clock_timestamp();
    RETURN NEXT;
END $$;

-- A local effect's bookkeeping, in its transaction: journal `applied`, the sequence advanced
-- (never back), the message's attempts forgotten. A plain INSERT: an entry that appeared
-- meanwhile raises unique_violation and aborts the whole transaction, effect included.
CREATE FUNCTION consumer_apply_local(
    p_effect_key TEXT, p_message_id TEXT, p_kind TEXT, p_sequence_key TEXT, p_sequence BIGINT,
    p_consumer TEXT, p_attempt_key TEXT
) RETURNS void LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    INSERT INTO effect_journal (effect_key, state, message_id, kind, sequence_key, sequence)
    VALUES (p_effect_key, 'applied', p_message_id, p_kind, p_sequence_key, p_sequence);
    UPDATE sequence_state SET last_sequence = p_sequence, updated_at = now()
     WHERE sequence_key = p_sequence_key AND last_sequence < p_sequence;
    -- NULL when the lock's read found no attempts for the message (the common case).
    IF p_attempt_key IS NOT NULL THEN
        DELETE FROM consumer_attempts WHERE consumer = p_consumer AND attempt_key = p_attempt_key;
    END IF;
END $$;
