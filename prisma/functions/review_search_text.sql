-- review_search_text: its current definition (first defined in migration 20261130000000_init,
-- redefined in 20261206000000_error_class_by_shape).
-- Free-text search (`q`) over the raw message (id, keys, payload), the reason, the required check
-- and the last error. The two commonest JSON escapes of the message are undone so that
-- `he said "hi"` or `C:\temp` match as typed. The parts are joined by line breaks, so a term
-- without one never matches across two parts. The record id is not in it: the search finds an id
-- by its start on the primary key (lib/reviews/filter-sql.ts), and the random digits of 36
-- characters of UUID were the costliest trigrams of the index to keep at intake.
CREATE OR REPLACE FUNCTION review_search_text(message JSON, reason TEXT, required_check TEXT, last_error TEXT)
    RETURNS TEXT
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT lower(replace(replace(message::text, '\\', '\'), '\"', '"')
                      || E'\n' || reason || E'\n' || required_check || E'\n' || coalesce(last_error, '')) $$;
