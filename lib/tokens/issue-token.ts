import { type ChangeActor, personBehind } from "@/lib/access";
import type { Role } from "@/lib/access/client";
import { createApiToken } from "@/lib/auth";
import { db } from "@/lib/db/client";

export interface Issued {
  id: string;
  token: string;
  expiresAt: Date | null;
}

/**
 * Issues a token for a program: `token.created` in the decision log with the reason, and the
 * token itself returned once (only its hash is kept). `expiresInSeconds` null: it never expires.
 * Refused (`name-taken`) while a working token has the name.
 */
export async function issueToken(
  request: { name: string; role: Role; expiresInSeconds: number | null; reason?: string; domain?: string | null },
  actor: ChangeActor,
): Promise<Issued> {
  const expiresAt = request.expiresInSeconds === null ? null : new Date(Date.now() + request.expiresInSeconds * 1000);
  // The person behind the issuer (a token issued by a token belongs to the first one's person).
  const createdByUserId = await personBehind(db(), actor.ref);
  const issued = await createApiToken(request.name, request.role, actor.label, {
    createdByUserId,
    expiresAt,
    actorRole: actor.role,
    reason: request.reason,
    domain: request.domain ?? null,
  });
  return { id: issued.id, token: issued.token, expiresAt };
}
