-- Domains (docs/decisions/0029-domains.md): a domain groups message kinds (`payments`:
-- `card.charge`, `invoice.*`), and roles are granted globally or per domain. A record belongs to
-- the domain of its kind (domain_of_kind below); a record whose kind is in no domain is seen by
-- global grants only.

CREATE TABLE "domains" (
  -- Lower-case, like a DNS label: it appears in URLs, CLI flags and the groups claim mapping.
  "name" TEXT NOT NULL CHECK ("name" ~ '^[a-z][a-z0-9-]{0,62}$'),
  "description" TEXT,
  "created_by" TEXT NOT NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CONSTRAINT "domains_pkey" PRIMARY KEY ("name")
);

-- A pattern is a kind exactly (`card.charge`) or a prefix ending in `.*` (`invoice.*`, which
-- matches `invoice.reminder` and `invoice.a.b` but not `invoice`). One pattern, one domain; when
-- several patterns match a kind the most specific wins (exact, then the longest prefix), so the
-- answer never depends on the order rows were written.
CREATE TABLE "domain_kinds" (
  "pattern" TEXT NOT NULL CHECK ("pattern" ~ '^[A-Za-z0-9_:-]+(\.[A-Za-z0-9_:-]+)*(\.\*)?$' AND length("pattern") <= 200),
  "domain" TEXT NOT NULL,
  CONSTRAINT "domain_kinds_pkey" PRIMARY KEY ("pattern"),
  CONSTRAINT "domain_kinds_domain_fkey" FOREIGN KEY ("domain") REFERENCES "domains"("name") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "domain_kinds_domain_idx" ON "domain_kinds" ("domain");

-- A person's roles: one row per (role, domain), `domain` NULL meaning every domain (global).
-- Authorization reads these rows; users.role stays the person's headline role (what the
-- console shows next to the name, Better Auth's field), kept equal to one of the grants' roles.
-- `source`: `manual` (console, CLI) or `oidc` (replaced at each single sign-on from the groups
-- claim, never touching manual rows).
CREATE TABLE "role_grants" (
  "id" UUID NOT NULL DEFAULT gen_random_uuid(),
  "user_id" UUID NOT NULL,
  "role" "Role" NOT NULL CHECK ("role" <> 'consumer'),
  "domain" TEXT,
  "source" TEXT NOT NULL DEFAULT 'manual' CHECK ("source" IN ('manual', 'oidc')),
  "created_by" TEXT NOT NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CONSTRAINT "role_grants_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "role_grants_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE,
  CONSTRAINT "role_grants_domain_fkey" FOREIGN KEY ("domain") REFERENCES "domains"("name") ON DELETE CASCADE ON UPDATE CASCADE
);
-- PostgreSQL 15+: NULLS NOT DISTINCT makes one global grant per role and person.
CREATE UNIQUE INDEX "role_grants_user_role_domain_key" ON "role_grants" ("user_id", "role", "domain", "source") NULLS NOT DISTINCT;
CREATE INDEX "role_grants_domain_idx" ON "role_grants" ("domain");

-- Every person so far held their role everywhere.
INSERT INTO "role_grants" ("user_id", "role", "domain", "created_by")
SELECT "id", "role", NULL, 'migration:20261202010000_domains' FROM "users";

-- A token scoped to one domain (`token add ... --domain NAME`): a scoped consumer reports and
-- claims only its domain's kinds. NULL: every domain, as before.
ALTER TABLE "api_tokens" ADD COLUMN "domain" TEXT;
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_domain_fkey"
  FOREIGN KEY ("domain") REFERENCES "domains"("name") ON DELETE RESTRICT ON UPDATE CASCADE;

-- The domain of a kind, or NULL (no domain, or no kind). STABLE: it reads domain_kinds.
CREATE FUNCTION "domain_of_kind"(k TEXT) RETURNS TEXT
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT dk."domain"
  FROM "domain_kinds" dk
  WHERE k IS NOT NULL
    AND (dk."pattern" = k
      OR (right(dk."pattern", 2) = '.*' AND starts_with(k, left(dk."pattern", -1))))
  ORDER BY (dk."pattern" = k) DESC, length(dk."pattern") DESC
  LIMIT 1
$$;
