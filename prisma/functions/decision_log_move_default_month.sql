-- decision_log_move_default_month: its current definition (first defined in migration 20261202050000_decision_log_head_and_default).
-- A month whose entries landed in decision_log_default (appended while that month had no
-- partition: nobody ran `migrate` or `archive` for months) could not be archived. This moves one
-- month's entries out of the default partition into a partition of their own, unchanged (seq, at,
-- hashes: nothing the chain covers changes), so `review-console archive` can take that month like
-- any other (lib/retention/log-archive.ts calls it first). Under an ACCESS EXCLUSIVE lock on the
-- log: appends wait for the move (seconds per hundred thousand entries; the caller sets a lock
-- timeout). The append-only trigger of the default partition is off only inside this transaction,
-- for the DELETE of the rows just copied. Owner only (ALTER TABLE); returns the entries moved.
CREATE OR REPLACE FUNCTION decision_log_move_default_month(month_of TIMESTAMPTZ) RETURNS BIGINT
    LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    lo TIMESTAMP := date_trunc('month', month_of AT TIME ZONE 'UTC');
    hi TIMESTAMP := lo + interval '1 month';
    name TEXT := 'decision_log_' || to_char(lo, 'YYYY_MM');
    lo_text TEXT := to_char(lo, 'YYYY-MM-DD HH24:MI:SS') || '+00';
    hi_text TEXT := to_char(hi, 'YYYY-MM-DD HH24:MI:SS') || '+00';
    moved BIGINT;
BEGIN
    LOCK TABLE public.decision_log IN ACCESS EXCLUSIVE MODE;
    -- PostgreSQL refuses a partition for a month the default partition holds rows of, so an
    -- existing one means there is nothing of that month to move.
    IF to_regclass('public.' || quote_ident(name)) IS NOT NULL THEN
        RETURN 0;
    END IF;
    EXECUTE format('CREATE TABLE public.%I (LIKE public.decision_log INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', name);
    EXECUTE format('INSERT INTO public.%I SELECT * FROM public.decision_log_default WHERE at >= %L AND at < %L',
        name, lo_text, hi_text);
    GET DIAGNOSTICS moved = ROW_COUNT;
    ALTER TABLE public.decision_log_default DISABLE TRIGGER decision_log_append_only;
    EXECUTE format('DELETE FROM public.decision_log_default WHERE at >= %L AND at < %L', lo_text, hi_text);
    ALTER TABLE public.decision_log_default ENABLE TRIGGER decision_log_append_only;
    -- The row triggers (chain, append-only) and the indexes come with the attach; the statement
    -- triggers are not cloned, as in decision_log_create_month.
    EXECUTE format('ALTER TABLE public.decision_log ATTACH PARTITION public.%I FOR VALUES FROM (%L) TO (%L)',
        name, lo_text, hi_text);
    EXECUTE format('CREATE TRIGGER decision_log_chain_flush AFTER INSERT ON public.%I
        FOR EACH STATEMENT EXECUTE FUNCTION public.decision_log_chain_flush()', name);
    EXECUTE format('CREATE TRIGGER decision_log_no_truncate BEFORE TRUNCATE ON public.%I
        FOR EACH STATEMENT EXECUTE FUNCTION public.decision_log_refuse_change()', name);
    RETURN moved;
END $$;
