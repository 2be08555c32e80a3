-- review_records_keep_message: its current definition (first defined in migration 20261130000000_init).
-- The message as received is evidence: it is never rewritten (corrections are revisions).
CREATE OR REPLACE FUNCTION review_records_keep_message() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.message::text IS DISTINCT FROM OLD.message::text THEN
        RAISE EXCEPTION 'review_records.message is immutable (record %)', OLD.id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END $$;
