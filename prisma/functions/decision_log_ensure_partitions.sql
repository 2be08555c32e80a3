-- decision_log_ensure_partitions: its current definition (first defined in migration 20261201050000_decision_log_partitions).
-- The current month and `months_ahead` more. Returns the partitions it made.
CREATE OR REPLACE FUNCTION decision_log_ensure_partitions(months_ahead INTEGER DEFAULT 3) RETURNS SETOF TEXT
    LANGUAGE sql SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT made FROM (
        SELECT public.decision_log_create_month(now() + make_interval(months => i)) AS made
          FROM generate_series(0, months_ahead) AS i
    ) AS m WHERE made IS NOT NULL
$$;
