-- metric_counts_truncated: its current definition (first defined in migration 20261201030000_metric_counts, last changed in 20261201040000_group_counts_log_time_order).
CREATE OR REPLACE FUNCTION metric_counts_truncated() RETURNS trigger
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF TG_TABLE_NAME = 'review_records' THEN
        DELETE FROM public.review_record_counts;
        DELETE FROM public.review_group_counts;
    ELSIF TG_TABLE_NAME = 'replays' THEN
        DELETE FROM public.replay_counts;
    ELSIF TG_TABLE_NAME = 'bulk_operation_items' THEN
        DELETE FROM public.operation_pending_counts;
    END IF;
    RETURN NULL;
END $$;
