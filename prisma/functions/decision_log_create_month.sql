-- decision_log_create_month: its current definition (first defined in migration 20261201050000_decision_log_partitions).
-- One month's partition (the month of `month_of`, in UTC), unless it exists. Refused (NULL and a
-- notice) when decision_log_default already holds entries of that month: those would have to be
-- moved first. Each partition also gets the statement-level triggers, which PostgreSQL does not
-- clone: an INSERT naming the partition still moves the head, a TRUNCATE of it is refused.
CREATE OR REPLACE FUNCTION decision_log_create_month(month_of TIMESTAMPTZ) RETURNS TEXT
    LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    lo TIMESTAMP := date_trunc('month', month_of AT TIME ZONE 'UTC');
    hi TIMESTAMP := lo + interval '1 month';
    name TEXT := 'decision_log_' || to_char(lo, 'YYYY_MM');
BEGIN
    IF to_regclass('public.' || quote_ident(name)) IS NOT NULL THEN
        RETURN NULL;
    END IF;
    IF EXISTS (SELECT 1 FROM public.decision_log_default d
                WHERE d.at >= lo AT TIME ZONE 'UTC' AND d.at < hi AT TIME ZONE 'UTC') THEN
        RAISE NOTICE 'decision_log_default holds entries of %; no partition made for that month', to_char(lo, 'YYYY-MM');
        RETURN NULL;
    END IF;
    EXECUTE format('CREATE TABLE public.%I PARTITION OF public.decision_log FOR VALUES FROM (%L) TO (%L)',
        name, to_char(lo, 'YYYY-MM-DD HH24:MI:SS') || '+00', to_char(hi, 'YYYY-MM-DD HH24:MI:SS') || '+00');
    EXECUTE format('CREATE TRIGGER decision_log_chain_flush AFTER INSERT ON public.%I
        FOR EACH STATEMENT EXECUTE FUNCTION public.decision_log_chain_flush()', name);
    EXECUTE format('CREATE TRIGGER decision_log_no_truncate BEFORE TRUNCATE ON public.%I
        FOR EACH STATEMENT EXECUTE FUNCTION public.decision_log_refuse_change()', name);
    RETURN name;
END $$;
