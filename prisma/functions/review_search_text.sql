-- review_search_text: its current definition (first defined in migration 20261130000000_init).
-- Free-text search (`q`) over the record id and the raw message (id, keys, payload). The two
-- commonest JSON escapes are undone so that `he said "hi"` or `C:\temp` match as typed.
CREATE OR REPLACE FUNCTION review_search_text(record_id UUID, message JSON) RETURNS TEXT
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT lower(record_id::text || ' ' || replace(replace(message::text, '\\', '\'), '\"', '"')) $$;
