-- Error classes by the error's shape, and free-text search over what the error says.

-- error_class was GENERATED from last_error by the old rule (the leading token). It becomes a
-- plain column, written by intake (a client's own class, else the rule) and by a replay's failure:
-- a client may now send its own class, and the rule may change without a table rewrite. DROP
-- EXPRESSION keeps every stored value, so existing records keep their classes and their groups;
-- only records reported or failed from now on are classed by the new rule. No rewrite, a brief
-- ACCESS EXCLUSIVE lock.
ALTER TABLE "review_records" ALTER COLUMN "error_class" DROP EXPRESSION;

-- The error class of a record: what its last error says the cause is, by this one rule, the first
-- that applies (docs/api.md, "Error classes"; docs/decisions/0045-error-class-by-shape.md):
--   1. an error code anywhere in the text: errno style (`ETIMEDOUT`, `ECONNREFUSED`, `EAI_AGAIN`,
--      `ERR_…`) or capitals joined by underscores (`DEADLINE_EXCEEDED`);
--   2. an HTTP status, as the bare code (`503`): leading the text, or after `HTTP`, `HTTP/1.1`,
--      `status` or `status code`;
--   3. after generic leading words (`Error:`, `FATAL:`, `failed -`) are dropped, a name before a
--      colon that leads the text (`dependency-not-ready`, `TypeError`);
--   4. else the text with URLs, e-mail addresses, quoted values, numbers and tokens holding a
--      digit masked (`<url>`, `<email>`, `"…"`, `<n>`, `<id>`), white space collapsed, cut to 64.
-- NULL when there is no last error or nothing is left; never exactly `(none)`, the API's sentinel
-- for "no class".
-- Examples:
--   'ETIMEDOUT after 30000 ms: POST https://…'      -> 'ETIMEDOUT'
--   'connect ECONNREFUSED 127.0.0.1:5432'           -> 'ECONNREFUSED'
--   'Request failed with status code 503'           -> '503'
--   'dependency-not-ready: ledger for invoice 901 …' -> 'dependency-not-ready'
--   'worker billing-worker-2 stopped responding'     -> 'worker <id> stopped responding'
--   'Error: customer "Ada" not found'                -> 'customer "…" not found'
-- A client that knows its cause better sends `errorClass` with the report; intake stores that
-- instead (lib/reviews/intake-statement.ts). The column is written at intake and by a replay's
-- failure, so the rule may change without rewriting what records already hold.
CREATE OR REPLACE FUNCTION review_error_class(last_error TEXT) RETURNS TEXT
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    AS $$
DECLARE
    found TEXT;
    rest TEXT := last_error;
BEGIN
    -- 1. An error code anywhere: errno style (ETIMEDOUT, ECONNRESET, EAI_AGAIN,
    --    ERR_TLS_CERT_ALTNAME_INVALID; the words ERROR and ERRORS are not codes), or capitals
    --    joined by underscores (DEADLINE_EXCEEDED, INSUFFICIENT_FUNDS).
    found := substring(rest FROM '(?:^|[^A-Za-z0-9_])(E(?!RRORS?(?![A-Za-z0-9_]))[A-Z][A-Z0-9_]{2,}|[A-Z][A-Z0-9]*(?:_[A-Z][A-Z0-9]*)+)(?![A-Za-z0-9_])');
    IF found IS NOT NULL THEN RETURN left(found, 64); END IF;
    -- 2. An HTTP status, bare: leading the text, or after "HTTP", "HTTP/1.1", "status", "status code".
    found := coalesce(
        (regexp_match(rest, '^\s*([1-5][0-9]{2})(?![A-Za-z0-9_.])'))[1],
        (regexp_match(rest, '(?:^|[^A-Za-z0-9_])(?:http(?:/[0-9.]+)?|status(?: code)?)[\s:=]+([1-5][0-9]{2})(?![A-Za-z0-9_.])', 'i'))[1]);
    IF found IS NOT NULL THEN RETURN found; END IF;
    -- Generic leading words say nothing of the cause: "Error: ", "FATAL: ", "failed - ".
    rest := regexp_replace(rest, '^(?:\s*(?:error|err|exception|fatal|failed|failure|warning|panic)\s*[:!-]+)+\s*', '', 'i');
    -- 3. A name before a colon that leads the text: "dependency-not-ready: …", "TypeError: …".
    found := substring(rest FROM '^\s*([A-Za-z][A-Za-z0-9_.-]*[A-Za-z0-9_])\s*:(?!//)');
    IF found IS NOT NULL THEN RETURN left(found, 64); END IF;
    -- 4. The text itself, with what differs between records of one cause masked: addresses,
    --    quoted values, numbers, and tokens that hold a digit (ids, hosts, versions).
    rest := regexp_replace(rest, '[A-Za-z][A-Za-z0-9+.-]*://[^\s"''`<>]+', '<url>', 'g');
    rest := regexp_replace(rest, '[^\s@"''`<>]+@[^\s@"''`<>]+\.[A-Za-z]{2,}', '<email>', 'g');
    rest := regexp_replace(rest, '"[^"]*"', '"…"', 'g');
    rest := regexp_replace(rest, '`[^`]*`', '`…`', 'g');
    rest := regexp_replace(rest, '(?<![A-Za-z0-9])''[^'']*''', '''…''', 'g');
    rest := regexp_replace(rest, '(?<![A-Za-z0-9_.-])[0-9]+(?:[.,][0-9]+)*(?![A-Za-z0-9_-])', '<n>', 'g');
    rest := regexp_replace(rest, '(?<![A-Za-z0-9_.-])[A-Za-z0-9_.-]*[0-9][A-Za-z0-9_.-]*(?<![.-])', '<id>', 'g');
    rest := btrim(regexp_replace(rest, '\s+', ' ', 'g'), ' .:;,');
    RETURN nullif(nullif(left(rest, 64), ''), '(none)');
END
$$;

-- Search: the reason, the required check and the last error join the message; the id leaves. The
-- trigram index is rebuilt over the new text (it reads every record once, under a SHARE lock that
-- lets reads go on and holds intake back: seconds per hundred thousand records on a small server).
-- Free-text search (`q`) over the raw message (id, keys, payload), the reason, the required check
-- and the last error. The two commonest JSON escapes of the message are undone so that
-- `he said "hi"` or `C:\temp` match as typed. The parts are joined by line breaks, so a term
-- without one never matches across two parts. The record id is not in it: the search finds an id
-- by its start on the primary key (lib/reviews/filter-sql.ts), and the random digits of 36
-- characters of UUID were the costliest trigrams of the index to keep at intake.
CREATE FUNCTION review_search_text(message JSON, reason TEXT, required_check TEXT, last_error TEXT)
    RETURNS TEXT
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT lower(replace(replace(message::text, '\\', '\'), '\"', '"')
                      || E'\n' || reason || E'\n' || required_check || E'\n' || coalesce(last_error, '')) $$;
DROP INDEX "review_records_search_trgm";
CREATE INDEX "review_records_search_trgm" ON "review_records"
    USING gin (review_search_text("message", "reason", "required_check", "last_error") gin_trgm_ops);
DROP FUNCTION review_search_text(UUID, JSON);
