import type { PasswordLink } from "@/lib/auth/password-links";
import type { ChangeActor } from "@/lib/auth/actor-ref";
import { appendDecision } from "@/lib/audit/append";
import { db } from "@/lib/db/client";
import { newPasswordLink } from "./password-link";
import {
  type ChangeRefused,
  endSessions,
  lockPerson,
  notFound,
  type PersonRef,
  spendPasswordLinks,
} from "./person-change";

export type ResetPasswordResult =
  { ok: true; userId: string; email: string; sessionsEnded: number; link: PasswordLink } | ChangeRefused;

/**
 * Resets a person's password: in one transaction the old password stops working, their sessions
 * end, older links are spent, and `user.password-reset` is logged; then a new one-time link is
 * made for them to set a new password. Should making the link fail, the reset stands and another
 * reset makes a new one.
 */
export async function resetPassword(ref: PersonRef, reason: string, actor: ChangeActor): Promise<ResetPasswordResult> {
  const changed = await db().$transaction(async (tx) => {
    const person = await lockPerson(tx, ref);
    if (!person) return notFound(ref);
    if (person.banned) {
      return {
        ok: false as const,
        status: 409 as const,
        code: "disabled",
        message: `${person.email} is disabled; enable them first`,
      };
    }
    // Null, not deleted: the credential account stays, and Better Auth's reset sets it again.
    await tx.$executeRawUnsafe(
      `UPDATE accounts SET password = NULL, updated_at = now() WHERE user_id = $1::uuid AND provider_id = 'credential'`,
      person.id,
    );
    const sessionsEnded = await endSessions(tx, person.id);
    await spendPasswordLinks(tx, person.id);
    await appendDecision(tx, {
      actor: actor.label,
      actorRole: actor.role,
      action: "user.password-reset",
      reason,
      details: { userId: person.id, email: person.email, sessionsEnded },
    });
    return { ok: true as const, person, sessionsEnded };
  });
  if (!changed.ok) return changed;
  const link = await newPasswordLink(changed.person.email);
  if (!link) throw new Error(`no person ${changed.person.email} to make a password link for`);
  return {
    ok: true,
    userId: changed.person.id,
    email: changed.person.email,
    sessionsEnded: changed.sessionsEnded,
    link,
  };
}
