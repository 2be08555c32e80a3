-- review_error_class: its current definition (first defined in migration 20261130020000_error_class).
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
CREATE OR REPLACE FUNCTION review_error_class(last_error TEXT) RETURNS TEXT
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$ SELECT left(substring(last_error FROM '^\s*([A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?)'), 64) $$;
