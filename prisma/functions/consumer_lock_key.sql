-- consumer_lock_key: its current definition (first defined in migration 20261130030000_consumer).
-- BEGIN has been sent. Locks the key's row (INSERT .. ON CONFLICT DO NOTHING creates it at 0 when
-- the key is new, then SELECT .. FOR UPDATE), then reads what the decision needs. VOLATILE: each
-- statement takes a fresh snapshot, so the reads after the lock see what the lock's previous
-- holder committed (one statement would read from a snapshot taken before it waited for the lock),
-- and the second SELECT sees a row that a concurrent INSERT committed while ours waited on it.
CREATE OR REPLACE FUNCTION consumer_lock_key(p_sequence_key TEXT, p_effect_key TEXT, p_consumer TEXT, p_attempt_key TEXT)
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
