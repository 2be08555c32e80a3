-- Four-eyes approvals (docs/decisions/0031-four-eyes-approvals.md): some decisions
-- (cancel, confirm-applied, skip-gap on a record; a bulk operation above N records) do not run
-- when asked: they wait as an approval request until another person who may take them in the
-- record's domain approves.

-- Which decisions need a second person, per domain. `domain` NULL is the default for every domain
-- without a policy of its own for that decision (and for records in no domain). Text, not a
-- foreign key: removing a domain must not be blocked by a policy (the API checks the name exists
-- when a policy is set).
CREATE TABLE "approval_policies" (
  "id" UUID NOT NULL DEFAULT gen_random_uuid(),
  "domain" TEXT CHECK ("domain" ~ '^[a-z][a-z0-9-]{0,62}$'),
  "decision" TEXT NOT NULL CHECK ("decision" IN ('operation', 'cancel', 'confirm-applied', 'skip-gap')),
  -- Operations only: approval above this many records (NULL: always).
  "min_records" INTEGER CHECK ("min_records" >= 0),
  "expires_after_seconds" INTEGER NOT NULL DEFAULT 86400
    CHECK ("expires_after_seconds" BETWEEN 60 AND 2592000),
  "updated_by" TEXT NOT NULL,
  "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CONSTRAINT "approval_policies_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "approval_policies_min_records_check2" CHECK ("decision" = 'operation' OR "min_records" IS NULL)
);
CREATE UNIQUE INDEX "approval_policies_domain_decision_key" ON "approval_policies" ("domain", "decision") NULLS NOT DISTINCT;

-- One decision waiting for (or answered by) a second person. `request` is the whole validated
-- action (what POST /reviews/{id}/actions took) or operation definition (POST /operations), run
-- exactly as stored on approval. No foreign key to review_records: archiving moves records out.
CREATE TABLE "approval_requests" (
  "id" UUID NOT NULL DEFAULT gen_random_uuid(),
  "status" TEXT NOT NULL DEFAULT 'pending'
    CHECK ("status" IN ('pending', 'approved', 'rejected', 'expired', 'failed')),
  "decision" TEXT NOT NULL CHECK ("decision" IN ('operation', 'cancel', 'confirm-applied', 'skip-gap')),
  -- The permission the approver must hold in every domain of the decision.
  "permission" TEXT NOT NULL,
  -- NULL when the decision spans no domain or several (then `domains` lists them).
  "domain" TEXT,
  -- A JSON array of names (the schema-drift check reads no Postgres arrays).
  "domains" JSONB NOT NULL DEFAULT '[]',
  "review_id" UUID,
  "expected_version" INTEGER,
  "records" INTEGER,
  "request" JSONB NOT NULL,
  "reason" TEXT NOT NULL,
  "requested_by" TEXT NOT NULL,
  "requested_by_kind" TEXT NOT NULL CHECK ("requested_by_kind" IN ('user', 'token')),
  "requested_by_id" TEXT NOT NULL,
  "requested_role" "Role" NOT NULL,
  "decided_by" TEXT,
  "decided_by_id" TEXT,
  "decided_reason" TEXT,
  "decided_at" TIMESTAMPTZ(3),
  -- Why an approved decision could not run (the record changed, the gap closed, ...).
  "problem" TEXT,
  -- The operation an approved request created.
  "operation_id" UUID,
  "expires_at" TIMESTAMPTZ(3) NOT NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CONSTRAINT "approval_requests_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "approval_requests_status_expires_idx" ON "approval_requests" ("status", "expires_at");
CREATE INDEX "approval_requests_created_idx" ON "approval_requests" ("created_at" DESC);
-- What waits for a record (its page, and the one-at-a-time rule, which holds because a request
-- is stored only under the record's row lock).
CREATE INDEX "approval_requests_pending_review_idx" ON "approval_requests" ("review_id") WHERE "status" = 'pending';
