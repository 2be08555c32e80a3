import { createHash, randomBytes } from "node:crypto";
import { appendDecision } from "@/lib/audit/append";
import { db } from "@/lib/db/client";
import type { Role } from "./roles";

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
}

/** Issues a token; only its hash is stored, so the caller must hand the token over now. */
export async function createApiToken(
  name: string,
  role: Role,
  actor = "system:cli",
): Promise<{ id: string; token: string }> {
  const token = newToken();
  const row = await db().$transaction(async (tx) => {
    const created = await tx.apiToken.create({
      data: { name, role, tokenHash: hashToken(token), prefix: token.slice(0, 12) },
    });
    await appendDecision(tx, {
      actor,
      action: "token.created",
      reason: `issued token ${name} for role ${role}`,
      details: { tokenId: created.id, name, role, prefix: created.prefix },
    });
    return created;
  });
  return { id: row.id, token };
}

export async function findTokenActor(token: string): Promise<TokenActor | null> {
  const row = await db().apiToken.findUnique({ where: { tokenHash: hashToken(token) } });
  if (!row || row.revokedAt) return null;
  return { kind: "token", id: row.id, name: row.name, role: row.role };
}
