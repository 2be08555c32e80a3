import { createHash, randomBytes } from "node:crypto";
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

export async function createApiToken(name: string, role: Role): Promise<{ token: string; id: string }> {
  const token = newToken();
  const row = await db().apiToken.create({
    data: { name, role, tokenHash: hashToken(token), prefix: token.slice(0, 12) },
  });
  return { token, id: row.id };
}

export async function findTokenActor(token: string): Promise<TokenActor | null> {
  const row = await db().apiToken.findUnique({ where: { tokenHash: hashToken(token) } });
  if (!row || row.revokedAt) return null;
  return { kind: "token", id: row.id, name: row.name, role: row.role };
}
