-- decision_log_entry_hash: its current definition (first defined in migration 20261130000000_init).
-- The content hash of one entry. Both the chaining trigger and `audit verify` call this one
-- definition, so they cannot disagree. quote_nullable keeps NULL and '' apart.
CREATE OR REPLACE FUNCTION decision_log_entry_hash(
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
