-- Domain enforcement (docs/decisions/0030-domain-enforcement.md): the domains of the records a
-- bulk operation selected, frozen with its selection. `(none)` (never a domain's name) stands for
-- records in no domain. Who may read the operation is decided from this column (`domains <@
-- <theirs>`, which `(none)` never satisfies), not from a scan of its items on every list.
ALTER TABLE "bulk_operations" ADD COLUMN "domains" TEXT[] NOT NULL DEFAULT '{}';

-- Operations created before domains: the domains of their items' kinds as they are now.
UPDATE "bulk_operations" o SET "domains" = d.domains
  FROM (SELECT i."operation_id", array_agg(DISTINCT COALESCE(domain_of_kind(r."kind"), '(none)')) AS domains
          FROM "bulk_operation_items" i JOIN "review_records" r ON r."id" = i."review_id"
         GROUP BY i."operation_id") d
 WHERE d."operation_id" = o."id";
