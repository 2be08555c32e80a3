import type { ChangeActor } from "@/lib/auth/actor-ref";
import { appendDecision } from "@/lib/audit/append";
import { db } from "@/lib/db/client";
import { type PausedByChange, pauseWhatLostAuthority } from "@/lib/operations/authority";
import {
  type ChangeRefused,
  endSessions,
  lockPerson,
  notFound,
  type PersonRef,
  refuseSelf,
  spendPasswordLinks,
} from "./person-change";

export type DisableResult =
  { ok: true; userId: string; email: string; sessionsEnded: number; paused: PausedByChange } | ChangeRefused;

/**
 * Disables a person, in one transaction: Better Auth's admin-plugin ban (`banned`, with the
 * reason), so no sign-in starts a session; every session ends now; unused password links are
 * spent; a `user.disabled` entry; and what ran on their authority pauses (its own entries).
 */
export async function disableUser(ref: PersonRef, reason: string, actor: ChangeActor): Promise<DisableResult> {
  return db().$transaction(async (tx) => {
    const person = await lockPerson(tx, ref);
    if (!person) return notFound(ref);
    const self = refuseSelf(actor.ref, person, "disable");
    if (self) return self;
    if (person.banned) {
      return { ok: false, status: 409, code: "already-disabled", message: `${person.email} is already disabled` };
    }
    await tx.$executeRawUnsafe(
      `UPDATE users SET banned = true, ban_reason = $2, ban_expires = NULL, updated_at = now() WHERE id = $1::uuid`,
      person.id,
      reason,
    );
    const sessionsEnded = await endSessions(tx, person.id);
    await spendPasswordLinks(tx, person.id);
    await appendDecision(tx, {
      actor: actor.label,
      actorRole: actor.role,
      action: "user.disabled",
      reason,
      details: { userId: person.id, email: person.email, role: person.role, sessionsEnded },
    });
    const paused = await pauseWhatLostAuthority(tx, `user:${person.id}`, `${actor.label} disabled them: ${reason}`);
    return { ok: true, userId: person.id, email: person.email, sessionsEnded, paused };
  });
}
