import type { ChangeActor } from "@/lib/auth/actor-ref";
import { appendDecision } from "@/lib/audit/append";
import { db } from "@/lib/db/client";
import { pauseWhatLostAuthority, type PausedByChange } from "@/lib/operations/authority";

export type RevokeTarget = { id: string } | { name: string };

export type RevokeResult =
  | { ok: true; revoked: { id: string; name: string; prefix: string }[]; paused: PausedByChange }
  | { ok: false; status: 404 | 409; code: "not-found" | "already-revoked"; message: string };

/**
 * Revokes a token by id, or every not yet revoked token of a name (the CLI names tokens; names of
 * working tokens are unique, but tokens issued before that rule may share one). One transaction:
 * the tokens stop working, each gets a `token.revoked` entry with the reason, and operations and
 * automatic-replay switches running on a revoked token's authority pause.
 */
export async function revokeToken(target: RevokeTarget, reason: string, actor: ChangeActor): Promise<RevokeResult> {
  return db().$transaction(async (tx) => {
    const revoked = await tx.$queryRawUnsafe<{ id: string; name: string; prefix: string; role: string }[]>(
      `UPDATE api_tokens SET revoked_at = now(), revoked_by = $2
        WHERE revoked_at IS NULL AND ${"id" in target ? "id = $1::uuid" : "name = $1"}
       RETURNING id::text, name, prefix, role::text AS role`,
      "id" in target ? target.id : target.name,
      actor.label,
    );
    if (revoked.length === 0) {
      const what = "id" in target ? `token ${target.id}` : `token named ${target.name}`;
      const known = await tx.$queryRawUnsafe<unknown[]>(
        `SELECT 1 FROM api_tokens WHERE ${"id" in target ? "id = $1::uuid" : "name = $1"} LIMIT 1`,
        "id" in target ? target.id : target.name,
      );
      return known.length > 0
        ? { ok: false, status: 409, code: "already-revoked", message: `${what} is already revoked` }
        : { ok: false, status: 404, code: "not-found", message: `no ${what}` };
    }
    for (const token of revoked) {
      await appendDecision(tx, {
        actor: actor.label,
        actorRole: actor.role,
        action: "token.revoked",
        reason,
        details: { tokenId: token.id, name: token.name, prefix: token.prefix, role: token.role },
      });
    }
    const paused: PausedByChange = { operations: [], kinds: [] };
    for (const token of revoked) {
      const more = await pauseWhatLostAuthority(tx, `token:${token.id}`, `${actor.label} revoked it: ${reason}`);
      paused.operations.push(...more.operations);
      paused.kinds.push(...more.kinds);
    }
    return { ok: true, revoked: revoked.map(({ id, name, prefix }) => ({ id, name, prefix })), paused };
  });
}
