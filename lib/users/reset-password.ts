import { type ChangeActor } from "@/lib/access";
import type { PasswordLink } from "@/lib/auth";
import { db } from "@/lib/db/client";
import { conflict } from "@/lib/domain/refusal";
import { newPasswordLink } from "./password-link";
import { endSessionsAndLinks, lockPerson, type PersonRef, recordChange } from "./person-change";

export interface PasswordReset {
  userId: string;
  email: string;
  sessionsEnded: number;
  link: PasswordLink;
}

/**
 * Resets a person's password: in one transaction the old password stops working, their sessions
 * end, older links are spent, and `user.password-reset` is logged; then a new one-time link is
 * made for them to set a new password. Should making the link fail, the reset stands and another
 * reset makes a new one. Refused: no such person, or disabled (enable them first).
 */
export async function resetPassword(ref: PersonRef, reason: string, actor: ChangeActor): Promise<PasswordReset> {
  const { person, sessionsEnded } = await db().$transaction(async (tx) => {
    const person = await lockPerson(tx, ref);
    if (person.banned) throw conflict("disabled", `${person.email} is disabled; enable them first`);
    // Null, not deleted: the credential account stays, and Better Auth's reset sets it again.
    await tx.$executeRaw`
      UPDATE accounts SET password = NULL, updated_at = now()
       WHERE user_id = ${person.id}::uuid AND provider_id = 'credential'`;
    const sessionsEnded = await endSessionsAndLinks(tx, person.id);
    await recordChange(tx, actor, {
      action: "user.password-reset",
      reason,
      details: { userId: person.id, email: person.email, sessionsEnded },
    });
    return { person, sessionsEnded };
  });
  const link = await newPasswordLink(person.email);
  if (!link) throw new Error(`no person ${person.email} to make a password link for`);
  return { userId: person.id, email: person.email, sessionsEnded, link };
}
