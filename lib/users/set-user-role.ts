import { type ChangeActor } from "@/lib/access";
import type { PersonRole } from "@/lib/access/client";
import { db } from "@/lib/db/client";
import { conflict } from "@/lib/domain/refusal";
import { type PausedByChange, pauseWhatLostAuthority } from "@/lib/operations";
import { endSessions, lockPerson, type PersonRef, recordChange, refuseOwnAccount } from "./person-change";

export interface RoleChanged {
  userId: string;
  email: string;
  from: PersonRole;
  to: PersonRole;
  sessionsEnded: number;
  paused: PausedByChange;
}

/**
 * Gives a person another role, in one transaction: the role (Better Auth's `role` field, never
 * writable through its endpoints), every session ended (they sign in again under the new role,
 * and no page keeps showing what the old one could do), a `user.role-changed` entry, and what ran
 * on their authority and the new role may not do pauses. Refused: no such person, one's own
 * account, or the role they already have.
 */
export async function setUserRole(
  ref: PersonRef,
  role: PersonRole,
  reason: string,
  actor: ChangeActor,
): Promise<RoleChanged> {
  return db().$transaction(async (tx) => {
    const person = await lockPerson(tx, ref);
    refuseOwnAccount(actor, person, "change the role of");
    if (person.role === role) throw conflict("same-role", `${person.email} already has the role ${role}`);
    await tx.$executeRaw`UPDATE users SET role = ${role}::"Role", updated_at = now() WHERE id = ${person.id}::uuid`;
    // The role held everywhere moves with it (ADR 0029); domain grants are changed by `user grant`.
    await tx.$executeRaw`
      UPDATE role_grants SET role = ${role}::"Role"
       WHERE user_id = ${person.id}::uuid AND domain IS NULL AND source = 'manual' AND role = ${person.role}::"Role"`;
    const sessionsEnded = await endSessions(tx, person.id);
    await recordChange(tx, actor, {
      action: "user.role-changed",
      reason,
      details: { userId: person.id, email: person.email, from: person.role, to: role, sessionsEnded },
    });
    const paused = await pauseWhatLostAuthority(
      tx,
      `user:${person.id}`,
      `${actor.label} changed their role from ${person.role} to ${role}: ${reason}`,
    );
    return { userId: person.id, email: person.email, from: person.role, to: role, sessionsEnded, paused };
  });
}
