import { type ChangeActor } from "@/lib/access";
import { appendDecision } from "@/lib/audit";
import { db } from "@/lib/db/client";
import { conflict, notFound } from "@/lib/domain/refusal";
import { Prisma } from "@/lib/generated/prisma/client";
import { pauseWhatLostAuthority, type PausedByChange } from "@/lib/operations";

export type RevokeTarget = { id: string } | { name: string };

export interface Revoked {
  revoked: { id: string; name: string; prefix: string }[];
  paused: PausedByChange;
}

/**
 * Revokes a token by id, or every not yet revoked token of a name (the CLI names tokens; names of
 * working tokens are unique, but tokens issued before that rule may share one). One transaction:
 * the tokens stop working, each gets a `token.revoked` entry with the reason, and operations and
 * automatic-replay switches running on a revoked token's authority pause. Refused: no such token,
 * or every token it names is revoked already.
 */
export async function revokeToken(target: RevokeTarget, reason: string, actor: ChangeActor): Promise<Revoked> {
  const match = "id" in target ? Prisma.sql`id = ${target.id}::uuid` : Prisma.sql`name = ${target.name}`;
  return db().$transaction(async (tx) => {
    const revoked = await tx.$queryRaw<{ id: string; name: string; prefix: string; role: string }[]>`
      UPDATE api_tokens SET revoked_at = now(), revoked_by = ${actor.label}
       WHERE revoked_at IS NULL AND ${match}
      RETURNING id::text AS id, name, prefix, role::text AS role`;
    if (revoked.length === 0) {
      const what = "id" in target ? `token ${target.id}` : `token named ${target.name}`;
      const known = await tx.$queryRaw<unknown[]>`SELECT 1 FROM api_tokens WHERE ${match} LIMIT 1`;
      throw known.length > 0 ? conflict("already-revoked", `${what} is already revoked`) : notFound(`no ${what}`);
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
    return { revoked: revoked.map(({ id, name, prefix }) => ({ id, name, prefix })), paused };
  });
}
