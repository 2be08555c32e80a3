import { db } from "@/lib/db/client";
import { Prisma } from "@/lib/generated/prisma/client";
import type { TokenView } from "./token-view";

/**
 * Every token, working ones first (then newest first). Expired is judged by the database's
 * clock, as authentication judges it.
 */
export function listTokens(): Promise<TokenView[]> {
  return readTokens(Prisma.empty);
}

/** One token as listTokens shows it, or null. */
export async function getTokenView(id: string): Promise<TokenView | null> {
  return (await readTokens(Prisma.sql`WHERE id = ${id}::uuid`))[0] ?? null;
}

async function readTokens(where: Prisma.Sql): Promise<TokenView[]> {
  const rows = await db().$queryRaw<
    {
      id: string;
      name: string;
      role: TokenView["role"];
      domain: string | null;
      prefix: string;
      state: TokenView["state"];
      createdBy: string | null;
      createdAt: Date;
      lastUsedAt: Date | null;
      expiresAt: Date | null;
      revokedAt: Date | null;
      revokedBy: string | null;
    }[]
  >`
    SELECT id::text AS id, name, role::text AS role, domain, prefix, created_by AS "createdBy", created_at AS "createdAt",
           last_used_at AS "lastUsedAt", expires_at AS "expiresAt", revoked_at AS "revokedAt",
           revoked_by AS "revokedBy",
           CASE WHEN revoked_at IS NOT NULL THEN 'revoked'
                WHEN expires_at <= now() THEN 'expired' ELSE 'active' END AS state
      FROM api_tokens ${where}
     ORDER BY (revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())) DESC, created_at DESC, id`;
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    role: r.role,
    domain: r.domain,
    prefix: r.prefix,
    state: r.state,
    createdBy: r.createdBy,
    createdAt: r.createdAt.toISOString(),
    lastUsedAt: r.lastUsedAt?.toISOString() ?? null,
    expiresAt: r.expiresAt?.toISOString() ?? null,
    revokedAt: r.revokedAt?.toISOString() ?? null,
    revokedBy: r.revokedBy,
  }));
}
