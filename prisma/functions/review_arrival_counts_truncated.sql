-- review_arrival_counts_truncated: its current definition (first defined in migration 20261201080000_arrival_counts, last changed in 20261202070000_arrival_day_counts).
CREATE OR REPLACE FUNCTION review_arrival_counts_truncated() RETURNS trigger
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    DELETE FROM public.review_arrival_counts;
    DELETE FROM public.review_arrival_day_counts;
    RETURN NULL;
END $$;
