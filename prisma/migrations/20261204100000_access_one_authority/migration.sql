-- One authority (docs/decisions/0037-one-access-module.md).
--
-- A token knows the person who issued it: four eyes compare people, and a request filed with a
-- person's own token is that person's request. Tokens issued before this are matched by the
-- label the console wrote (`user:<email>`); those issued by the CLI have no person (NULL).
ALTER TABLE "api_tokens" ADD COLUMN "created_by_user_id" UUID;
UPDATE "api_tokens" t SET "created_by_user_id" = u."id"
  FROM "users" u WHERE t."created_by" = 'user:' || u."email";

-- The person behind an approval request: the requester itself, or the person who issued the
-- requesting token (NULL: a token the CLI issued). Nobody approves what this person filed.
ALTER TABLE "approval_requests" ADD COLUMN "requested_person_id" TEXT;
UPDATE "approval_requests" SET "requested_person_id" = "requested_by_id" WHERE "requested_by_kind" = 'user';
UPDATE "approval_requests" a SET "requested_person_id" = t."created_by_user_id"::text
  FROM "api_tokens" t WHERE a."requested_by_kind" = 'token' AND t."id"::text = a."requested_by_id";

-- `withdrawn`: the requester may no longer ask for it (disabled, revoked, lost the grant); it
-- never runs.
ALTER TABLE "approval_requests" DROP CONSTRAINT "approval_requests_status_check";
ALTER TABLE "approval_requests" ADD CONSTRAINT "approval_requests_status_check"
  CHECK ("status" IN ('pending', 'approved', 'rejected', 'expired', 'failed', 'withdrawn'));
