import { createHash, randomBytes } from "node:crypto";
import { appendDecision } from "@/lib/audit";
import { db, dbPool } from "@/lib/db/client";
import { conflict, notFound } from "@/lib/domain/refusal";
import { refuseScopedGlobalRole } from "@/lib/access/client";
import { BatchedLookup } from "@/lib/db/batched-lookup";
import { log } from "@/lib/log";
import type { Role } from "@/lib/access/client";

// Tokens carry 256 random bits, so a fast hash is enough to make the stored value useless to a
// reader of the database (a slow password hash would only slow every request down).
export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export function newToken(): string {
  return `rct_${randomBytes(32).toString("base64url")}`;
}

export interface TokenActor {
  kind: "token";
  id: string;
  name: string;
  role: Role;
  /** The one domain it is scoped to (ADR 0029), or null: every domain. */
  domain: string | null;
  /** The person who issued it (null: the CLI): for four eyes, its requests are theirs. */
  person: string | null;
}

export interface IssueOptions {
  /** When it stops working; null or absent: never. */
  expiresAt?: Date | null;
  actorRole?: string | null;
  /** Why, for the decision log; absent: a sentence naming the token and role. */
  reason?: string;
  /** The one domain it may report and claim in (ADR 0029); absent or null: every domain. */
  domain?: string | null;
  /** The person issuing it (lib/access personBehind); absent or null: the CLI, a seed, a test. */
  createdByUserId?: string | null;
}

/**
 * Issues a token; only its hash is stored, so the caller must hand the token over now. Refused
 * (`name-taken`) while a token of that name still works: the name is how people and the CLI tell
 * tokens apart (`token revoke --name N` must name one token). The check and the insert run under
 * a lock on the name.
 */
export async function createApiToken(
  name: string,
  role: Role,
  actor = "system:cli",
  options: IssueOptions = {},
): Promise<{ id: string; token: string }> {
  const token = newToken();
  const expiresAt = options.expiresAt ?? null;
  const domain = options.domain ?? null;
  const row = await db().$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('api_tokens.name'), hashtext(${name}))`;
    const taken = await tx.$queryRaw<unknown[]>`
      SELECT 1 FROM api_tokens
       WHERE name = ${name} AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`;
    if (taken.length > 0) {
      throw conflict("name-taken", `a working token named ${name} exists; revoke it first or choose another name`);
    }
    refuseScopedGlobalRole(role, domain);
    if (domain !== null) {
      // FOR SHARE: the domain cannot be removed before this token is committed.
      const known = await tx.$queryRaw<unknown[]>`SELECT 1 FROM domains WHERE name = ${domain} FOR SHARE`;
      if (known.length === 0) throw notFound(`no domain ${domain}`);
    }
    const created = await tx.apiToken.create({
      data: {
        name,
        role,
        tokenHash: hashToken(token),
        prefix: token.slice(0, 12),
        createdBy: actor,
        expiresAt,
        domain,
        createdByUserId: options.createdByUserId ?? null,
      },
    });
    await appendDecision(tx, {
      actor,
      actorRole: options.actorRole ?? null,
      action: "token.created",
      reason: options.reason ?? `issued token ${name} for role ${role}${domain === null ? "" : ` in domain ${domain}`}`,
      details: {
        tokenId: created.id,
        name,
        role,
        prefix: created.prefix,
        expiresAt: expiresAt?.toISOString() ?? null,
        domain,
      },
    });
    return created;
  });
  return { id: row.id, token };
}

/** `last_used_at` is coarse: written at most once per this many seconds per token. */
export const LAST_USED_GRANULARITY_SECONDS = 60;

export interface TokenRow {
  tokenHash: string;
  id: string;
  name: string;
  role: Role;
  domain: string | null;
  person: string | null;
  usable: boolean;
  usedRecently: boolean;
}

/**
 * The token's actor, or null when it is unknown, revoked or expired (a 401 for the caller). Its
 * `last_used_at` is moved on at most once a minute: one small write per token per minute, not one
 * per request. Expiry is judged by the database's clock, like every other time here.
 *
 * Every call is answered by a query sent after the call was made (tokenLookups), so a token
 * revoked or expired before the request arrived is always refused: nothing is cached.
 */
export async function findTokenActor(token: string): Promise<TokenActor | null> {
  const row = await tokenLookups().find(hashToken(token));
  if (!row?.usable) return null;
  if (!row.usedRecently) await touchLastUsed(row.id);
  return { kind: "token", id: row.id, name: row.name, role: row.role, domain: row.domain, person: row.person };
}

/** Bump the version when the text changes: a connection keeps a name's first text. */
const TOKEN_ROWS_STATEMENT = "review-console:token-rows:v2";

/**
 * The rows of these token hashes, one query for all of them. Every API request of a program
 * waits for it, so it is sent with node-postgres as a named prepared statement (as the intake
 * statement is, docs/decisions/0035-intake-cost.md): Prisma's own cost per query was most of the
 * console's database-client time on the intake path.
 */
export async function tokenRows(hashes: string[]): Promise<Map<string, TokenRow>> {
  const { rows } = await dbPool().query<TokenRow>({
    name: TOKEN_ROWS_STATEMENT,
    text: `SELECT token_hash AS "tokenHash", id::text, name, role::text AS role, domain,
                  created_by_user_id::text AS person,
                  revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now()) AS usable,
                  COALESCE(last_used_at > now() - $2::int * interval '1 second', false) AS "usedRecently"
             FROM api_tokens WHERE token_hash = ANY($1::text[])`,
    values: [hashes, LAST_USED_GRANULARITY_SECONDS],
  });
  return new Map(rows.map((row) => [row.tokenHash, row]));
}

// On globalThis: Next may load this module twice; both copies share the queue.
const shared = globalThis as unknown as { reviewConsoleTokenLookups?: BatchedLookup<string, TokenRow> };

/**
 * Token lookups of concurrent requests, joined: every API request looks its token up, and one
 * query per request was a database round trip per request (docs/decisions/0018-intake-coalescing.md).
 */
export function tokenLookups(): BatchedLookup<string, TokenRow> {
  return (shared.reviewConsoleTokenLookups ??= new BatchedLookup(tokenRows));
}

async function touchLastUsed(id: string): Promise<void> {
  try {
    // Guarded again: of concurrent first requests in a minute, one writes.
    await db().$executeRaw`
      UPDATE api_tokens SET last_used_at = now()
       WHERE id = ${id}::uuid
         AND (last_used_at IS NULL OR last_used_at <= now() - ${LAST_USED_GRANULARITY_SECONDS}::int * interval '1 second')`;
  } catch (err) {
    // A bookkeeping write must not fail the caller's request.
    log.warn({ err, tokenId: id }, "could not record a token's last use");
  }
}
