-- domain_of_kind: its current definition (first defined in migration 20261202010000_domains).
-- The domain of a kind, or NULL (no domain, or no kind). STABLE: it reads domain_kinds.
CREATE OR REPLACE FUNCTION "domain_of_kind"(k TEXT) RETURNS TEXT
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT dk."domain"
  FROM "domain_kinds" dk
  WHERE k IS NOT NULL
    AND (dk."pattern" = k
      OR (right(dk."pattern", 2) = '.*' AND starts_with(k, left(dk."pattern", -1))))
  ORDER BY (dk."pattern" = k) DESC, length(dk."pattern") DESC
  LIMIT 1
$$;
