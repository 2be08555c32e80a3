-- consumer_apply_local: its current definition (first defined in migration 20261130030000_consumer).
-- A local effect's bookkeeping, in its transaction: journal `applied`, the sequence advanced
-- (never back), the message's attempts forgotten. A plain INSERT: an entry that appeared
-- meanwhile raises unique_violation and aborts the whole transaction, effect included.
CREATE OR REPLACE FUNCTION consumer_apply_local(
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
