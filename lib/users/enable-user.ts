import type { ChangeActor } from "@/lib/auth/actor-ref";
import { appendDecision } from "@/lib/audit/append";
import { db } from "@/lib/db/client";
import { type ChangeRefused, lockPerson, notFound, type PersonRef } from "./person-change";

export type EnableResult = { ok: true; userId: string; email: string } | ChangeRefused;

/**
 * Lifts a disable: the person may sign in again with their password. What paused when they were
 * disabled stays paused until someone resumes it.
 */
export async function enableUser(ref: PersonRef, reason: string, actor: ChangeActor): Promise<EnableResult> {
  return db().$transaction(async (tx) => {
    const person = await lockPerson(tx, ref);
    if (!person) return notFound(ref);
    if (!person.banned) {
      return { ok: false, status: 409, code: "not-disabled", message: `${person.email} is not disabled` };
    }
    await tx.$executeRawUnsafe(
      `UPDATE users SET banned = false, ban_reason = NULL, ban_expires = NULL, updated_at = now() WHERE id = $1::uuid`,
      person.id,
    );
    await appendDecision(tx, {
      actor: actor.label,
      actorRole: actor.role,
      action: "user.enabled",
      reason,
      details: { userId: person.id, email: person.email, role: person.role },
    });
    return { ok: true, userId: person.id, email: person.email };
  });
}
