-- The queue's grouped view by cause: kind + reason + the class of the last error.
-- See docs/api-additions.md (GET /api/v1/reviews/groups, the `errorClass` list filter).

-- The error class of a record, derived from its `last_error` by this one rule:
--   the leading token of the text: after leading white space, the longest run of ASCII letters,
--   digits, `_`, `.` and `-` that starts and ends with a letter, digit or `_`, cut to 64
--   characters. NULL when there is no last error or it does not start with such a token.
-- Examples (phrasings of lib/seed/demo-scenarios.ts):
--   'ETIMEDOUT after 30000 ms: POST https://…'      -> 'ETIMEDOUT'
--   'dependency-not-ready: ledger for invoice 901 …' -> 'dependency-not-ready'
--   '422 recipient address rejected: …'              -> '422'
--   'worker billing-worker-2 stopped responding'     -> 'worker'
--   ': odd text', '', NULL                           -> NULL
-- A class never contains parentheses, so the API's sentinel `(none)` (errorClass IS NULL) cannot
-- collide with a real class. ASCII classes only, on purpose: [[:alnum:]] would depend on the
-- database's locale, and a generated column needs a rule that is IMMUTABLE for real.
CREATE FUNCTION review_error_class(last_error TEXT) RETURNS TEXT
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$ SELECT left(substring(last_error FROM '^\s*([A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?)'), 64) $$;

-- STORED: computed on every insert and on every update of last_error (intake's upsert included),
-- so it can be indexed and grouped on without re-running the rule. Prisma only reads it; writing
-- it is refused by the database ("cannot insert a non-DEFAULT value into column").
-- Adding it rewrites review_records once, under an ACCESS EXCLUSIVE lock.
ALTER TABLE "review_records"
    ADD COLUMN "error_class" TEXT GENERATED ALWAYS AS (review_error_class("last_error")) STORED;

-- The grouped view: filtered by status (leading; the view defaults to the active statuses) and
-- optionally kind and reason, grouped by (kind, reason, error_class). The aggregates
-- (first_seen_at, last_seen_at) are read from the table: adding them to this index (INCLUDE)
-- would make every repeated report a non-HOT update, a write cost paid on the hot path.
CREATE INDEX "review_records_status_kind_reason_error_class_idx"
    ON "review_records"("status", "kind", "reason", "error_class");

-- The list's `errorClass` filter, newest first by seq: one composite index per filter, as for the
-- others (docs/decisions/0005). Also serves `errorClass=(none)` (IS NULL).
CREATE INDEX "review_records_error_class_seq_idx" ON "review_records"("error_class", "seq");
