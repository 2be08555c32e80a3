-- People and tokens get a life cycle (docs/decisions/0011-people-and-tokens.md).

-- Better Auth's admin plugin keeps its ban on the user: a banned (disabled) person cannot start
-- a session, and disabling one deletes their sessions. The console never sets a ban expiry (no
-- timed bans), so ban_expires stays null; the column exists because the plugin reads it.
ALTER TABLE "users"
    ADD COLUMN "banned" BOOLEAN NOT NULL DEFAULT false,
    ADD COLUMN "ban_reason" TEXT,
    ADD COLUMN "ban_expires" TIMESTAMPTZ(3);

-- The admin plugin's session field. Impersonation is off (its endpoints are not served), so it
-- is always null; Better Auth's adapter still reads the column.
ALTER TABLE "sessions" ADD COLUMN "impersonated_by" TEXT;

-- API tokens: who issued one (the actor label, e.g. `user:admin@example.com`, `system:cli`), when
-- it stops working (null: never), and who revoked it. last_used_at existed but was never written;
-- it is now set at most once a minute per token.
ALTER TABLE "api_tokens"
    ADD COLUMN "created_by" TEXT,
    ADD COLUMN "expires_at" TIMESTAMPTZ(3),
    ADD COLUMN "revoked_by" TEXT;

-- Tokens issued before this migration: their issuer is in the decision log's token.created entry.
UPDATE "api_tokens" t SET "created_by" = d."actor"
  FROM "decision_log" d
 WHERE d."action" = 'token.created' AND d."details"->>'tokenId' = t."id"::text;

-- On whose permission a bulk operation dispatches, and an automatic-replay switch replays:
-- `<kind>:<id>` of the actor (lib/auth/actor.ts) who last set it going (created, confirmed or
-- resumed the operation; turned the switch on). When that person is disabled or loses the role,
-- or that token is revoked or expires, the operation or switch pauses (lib/operations/authority.ts).
ALTER TABLE "bulk_operations" ADD COLUMN "authority_actor" TEXT;
ALTER TABLE "kind_settings"
    ADD COLUMN "authority_actor" TEXT,
    -- Set when the switch paused itself; it replays nothing until someone turns it on again.
    ADD COLUMN "paused_reason" TEXT;

-- Existing rows: the actor from the label they recorded, when the label names exactly one
-- person (emails are unique) or one token (names were not). Others stay null: not checked.
UPDATE "bulk_operations" o SET "authority_actor" = 'user:' || u."id"
  FROM "users" u WHERE COALESCE(o."confirmed_by", o."created_by") = 'user:' || u."email";
UPDATE "bulk_operations" o SET "authority_actor" = 'token:' || t."id"
  FROM "api_tokens" t
 WHERE COALESCE(o."confirmed_by", o."created_by") = 'token:' || t."name"
   AND (SELECT count(*) FROM "api_tokens" t2 WHERE t2."name" = t."name") = 1;
UPDATE "kind_settings" k SET "authority_actor" = 'user:' || u."id"
  FROM "users" u WHERE k."auto_replay_ready" AND k."updated_by" = 'user:' || u."email";
UPDATE "kind_settings" k SET "authority_actor" = 'token:' || t."id"
  FROM "api_tokens" t
 WHERE k."auto_replay_ready" AND k."updated_by" = 'token:' || t."name"
   AND (SELECT count(*) FROM "api_tokens" t2 WHERE t2."name" = t."name") = 1;
