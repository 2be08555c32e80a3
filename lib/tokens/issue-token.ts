import type { ChangeActor } from "@/lib/auth/actor-ref";
import type { Role } from "@/lib/auth/roles";
import { createApiToken, TokenNameTaken } from "@/lib/auth/tokens";

export type IssueResult =
  | { ok: true; id: string; token: string; expiresAt: Date | null }
  | { ok: false; status: 409; code: "name-taken"; message: string };

/**
 * Issues a token for a program: `token.created` in the decision log with the reason, and the
 * token itself returned once (only its hash is kept). `expiresInSeconds` null: it never expires.
 */
export async function issueToken(
  request: { name: string; role: Role; expiresInSeconds: number | null; reason?: string },
  actor: ChangeActor,
): Promise<IssueResult> {
  const expiresAt = request.expiresInSeconds === null ? null : new Date(Date.now() + request.expiresInSeconds * 1000);
  try {
    const issued = await createApiToken(request.name, request.role, actor.label, {
      expiresAt,
      actorRole: actor.role,
      reason: request.reason,
    });
    return { ok: true, id: issued.id, token: issued.token, expiresAt };
  } catch (error) {
    if (error instanceof TokenNameTaken) return { ok: false, status: 409, code: "name-taken", message: error.message };
    throw error;
  }
}
