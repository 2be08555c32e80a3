import type { ChangeActor } from "@/lib/auth/actor-ref";
import type { PasswordLink } from "@/lib/auth/password-links";
import type { PersonRole } from "@/lib/auth/person-roles";
import { createUser } from "./create-user";
import { newPasswordLink } from "./password-link";
import type { ChangeRefused } from "./person-change";

export type InviteResult = { ok: true; userId: string; email: string; link: PasswordLink } | ChangeRefused;

/**
 * Invites a person: they are added with their role and no password (`user.created`, with the
 * reason, `details.invited`), and a one-time link lets them set one. The admin hands the link
 * over; it is shown once. If the link cannot be made, the person exists and "new password link"
 * makes one.
 */
export async function inviteUser(
  input: { email: string; role: PersonRole },
  reason: string,
  actor: ChangeActor,
): Promise<InviteResult> {
  const created = await createUser(input, actor.label, { actorRole: actor.role, reason });
  const email = input.email.toLowerCase();
  if (!created.ok) {
    return { ok: false, status: 409, code: "email-taken", message: `a person with email ${email} already exists` };
  }
  const link = await newPasswordLink(email);
  if (!link) throw new Error(`no person ${email} to make a password link for`);
  return { ok: true, userId: created.id, email, link };
}
