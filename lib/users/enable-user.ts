import { type ChangeActor } from "@/lib/access";
import { db } from "@/lib/db/client";
import { conflict } from "@/lib/domain/refusal";
import { lockPerson, type PersonRef, recordChange } from "./person-change";

export interface Enabled {
  userId: string;
  email: string;
}

/**
 * Lifts a disable: the person may sign in again with their password. What paused when they were
 * disabled stays paused until someone resumes it. Refused: no such person, or not disabled.
 */
export async function enableUser(ref: PersonRef, reason: string, actor: ChangeActor): Promise<Enabled> {
  return db().$transaction(async (tx) => {
    const person = await lockPerson(tx, ref);
    if (!person.banned) throw conflict("not-disabled", `${person.email} is not disabled`);
    await tx.$executeRaw`
      UPDATE users SET banned = false, ban_reason = NULL, ban_expires = NULL, updated_at = now()
       WHERE id = ${person.id}::uuid`;
    await recordChange(tx, actor, {
      action: "user.enabled",
      reason,
      details: { userId: person.id, email: person.email, role: person.role },
    });
    return { userId: person.id, email: person.email };
  });
}
