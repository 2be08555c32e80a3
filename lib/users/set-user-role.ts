import type { ChangeActor } from "@/lib/auth/actor-ref";
import type { PersonRole } from "@/lib/auth/person-roles";
import { appendDecision } from "@/lib/audit/append";
import { db } from "@/lib/db/client";
import { type PausedByChange, pauseWhatLostAuthority } from "@/lib/operations/authority";
import { type ChangeRefused, endSessions, lockPerson, notFound, type PersonRef, refuseSelf } from "./person-change";

export type SetRoleResult =
  | {
      ok: true;
      userId: string;
      email: string;
      from: PersonRole;
      to: PersonRole;
      sessionsEnded: number;
      paused: PausedByChange;
    }
  | ChangeRefused;

/**
 * Gives a person another role, in one transaction: the role (Better Auth's `role` field, never
 * writable through its endpoints), every session ended (they sign in again under the new role,
 * and no page keeps showing what the old one could do), a `user.role-changed` entry, and what ran
 * on their authority and the new role may not do pauses.
 */
export async function setUserRole(
  ref: PersonRef,
  role: PersonRole,
  reason: string,
  actor: ChangeActor,
): Promise<SetRoleResult> {
  return db().$transaction(async (tx) => {
    const person = await lockPerson(tx, ref);
    if (!person) return notFound(ref);
    const self = refuseSelf(actor.ref, person, "change the role of");
    if (self) return self;
    if (person.role === role) {
      return { ok: false, status: 409, code: "same-role", message: `${person.email} already has the role ${role}` };
    }
    await tx.$executeRawUnsafe(
      `UPDATE users SET role = $2::"Role", updated_at = now() WHERE id = $1::uuid`,
      person.id,
      role,
    );
    const sessionsEnded = await endSessions(tx, person.id);
    await appendDecision(tx, {
      actor: actor.label,
      actorRole: actor.role,
      action: "user.role-changed",
      reason,
      details: { userId: person.id, email: person.email, from: person.role, to: role, sessionsEnded },
    });
    const paused = await pauseWhatLostAuthority(
      tx,
      `user:${person.id}`,
      `${actor.label} changed their role from ${person.role} to ${role}: ${reason}`,
    );
    return { ok: true, userId: person.id, email: person.email, from: person.role, to: role, sessionsEnded, paused };
  });
}
