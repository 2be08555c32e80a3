-- Two trust fixes of the decision log: the head lock is no longer open to every role,
-- and a month stranded in the default partition can be archived.

-- decision_log_next_at() (20261201050000) is SECURITY DEFINER and takes the decision log's head
-- lock with the owner's rights, and PostgreSQL lets PUBLIC execute every new function: any role
-- that could connect could call it in an open transaction, hold the lock and stop every append
-- (and with it every person's action). Only who appends keeps it: the owner, and the runtime role,
-- as which every append evaluates the function (it is the default of decision_log.at);
-- lib/db/roles.ts grants it on every run.

REVOKE EXECUTE ON FUNCTION public.decision_log_next_at() FROM PUBLIC;

-- The roles that append today (the runtime roles `db grant-runtime` made) keep appending before
-- it runs again: each role other than the owner with INSERT on the log gets EXECUTE now.
DO $$
DECLARE
    appender TEXT;
BEGIN
    FOR appender IN
        SELECT DISTINCT a.grantee::regrole::text
          FROM pg_class c, aclexplode(c.relacl) AS a
         WHERE c.oid = 'public.decision_log'::regclass
           AND a.privilege_type = 'INSERT' AND a.grantee <> 0 AND a.grantee <> c.relowner
    LOOP
        EXECUTE format('GRANT EXECUTE ON FUNCTION public.decision_log_next_at() TO %s', appender);
    END LOOP;
END $$;

-- A month whose entries landed in decision_log_default (appended while that month had no
-- partition: nobody ran `migrate` or `archive` for months) could not be archived. This moves one
-- month's entries out of the default partition into a partition of their own, unchanged (seq, at,
-- hashes: nothing the chain covers changes), so `review-console archive` can take that month like
-- any other (lib/retention/log-archive.ts calls it first). Under an ACCESS EXCLUSIVE lock on the
-- log: appends wait for the move (seconds per hundred thousand entries; the caller sets a lock
-- timeout). The append-only trigger of the default partition is off only inside this transaction,
-- for the DELETE of the rows just copied. Owner only (ALTER TABLE); returns the entries moved.
CREATE FUNCTION decision_log_move_default_month(month_of TIMESTAMPTZ) RETURNS BIGINT
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
REVOKE EXECUTE ON FUNCTION public.decision_log_move_default_month(TIMESTAMPTZ) FROM PUBLIC;
