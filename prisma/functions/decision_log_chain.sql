-- decision_log_chain: its current definition (first defined in migration 20261130000000_init, last changed in 20261201050000_decision_log_partitions).
-- The chain: each new entry takes the head lock, chains to the latest entry (its hash and seq;
-- the probe looks from a month before the row's routed month upward first, skipping the
-- partitions of older months; open upward, so what it finds is still the latest entry) or, when
-- the log holds no entry at or after the head (every entry up to it was archived), to the head
-- itself, whose hash is the last archived one; its time must stay in the routed month.
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
