-- review_records_set_finished_at: its current definition (first defined in migration 20261201080000_arrival_counts).
-- On insert (a record written as already finished, as the synthetic seed does): its last change.
-- On a status change into resolved or cancelled: now; out of them (no path does this today): NULL.
CREATE OR REPLACE FUNCTION review_records_set_finished_at() RETURNS trigger
    LANGUAGE plpgsql VOLATILE
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        NEW.finished_at := COALESCE(NEW.finished_at, NEW.updated_at);
    ELSIF NEW.status IN ('resolved', 'cancelled') THEN
        NEW.finished_at := now();
    ELSE
        NEW.finished_at := NULL;
    END IF;
    RETURN NEW;
END $$;
