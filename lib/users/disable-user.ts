import { type ChangeActor } from "@/lib/access";
import { db } from "@/lib/db/client";
import { conflict } from "@/lib/domain/refusal";
import { type PausedByChange, pauseWhatLostAuthority } from "@/lib/operations";
import { endSessionsAndLinks, lockPerson, type PersonRef, recordChange, refuseOwnAccount } from "./person-change";

export interface Disabled {
  userId: string;
  email: string;
  sessionsEnded: number;
  paused: PausedByChange;
}

/**
 * Disables a person, in one transaction: Better Auth's admin-plugin ban (`banned`, with the
 * reason), so no sign-in starts a session; every session ends now; unused password links are
 * spent; a `user.disabled` entry; and what ran on their authority pauses (its own entries).
 * Refused: no such person, one's own account, or already disabled.
 */
export async function disableUser(ref: PersonRef, reason: string, actor: ChangeActor): Promise<Disabled> {
  return db().$transaction(async (tx) => {
    const person = await lockPerson(tx, ref);
    refuseOwnAccount(actor, person, "disable");
    if (person.banned) throw conflict("already-disabled", `${person.email} is already disabled`);
    await tx.$executeRaw`
      UPDATE users SET banned = true, ban_reason = ${reason}, ban_expires = NULL, updated_at = now()
       WHERE id = ${person.id}::uuid`;
    const sessionsEnded = await endSessionsAndLinks(tx, person.id);
    await recordChange(tx, actor, {
      action: "user.disabled",
      reason,
      details: { userId: person.id, email: person.email, role: person.role, sessionsEnded },
    });
    const paused = await pauseWhatLostAuthority(tx, `user:${person.id}`, `${actor.label} disabled them: ${reason}`);
    return { userId: person.id, email: person.email, sessionsEnded, paused };
  });
}
