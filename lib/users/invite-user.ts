import { type ChangeActor } from "@/lib/access";
import type { PasswordLink } from "@/lib/auth";
import type { PersonRole } from "@/lib/access/client";
import { conflict } from "@/lib/domain/refusal";
import { createUser } from "./create-user";
import { newPasswordLink } from "./password-link";

export interface Invited {
  userId: string;
  email: string;
  link: PasswordLink;
}

/**
 * Invites a person: they are added with their role and no password (`user.created`, with the
 * reason, `details.invited`), and a one-time link lets them set one. The admin hands the link
 * over; it is shown once. If the link cannot be made, the person exists and "new password link"
 * makes one. Refused: somebody has that email already.
 */
export async function inviteUser(
  input: { email: string; role: PersonRole; domain?: string | null },
  reason: string,
  actor: ChangeActor,
): Promise<Invited> {
  const created = await createUser({ email: input.email, role: input.role }, actor.label, {
    actorRole: actor.role,
    reason,
    domain: input.domain ?? null,
  });
  const email = input.email.toLowerCase();
  if (!created.ok) throw conflict("email-taken", `a person with email ${email} already exists`);
  const link = await newPasswordLink(email);
  if (!link) throw new Error(`no person ${email} to make a password link for`);
  return { userId: created.id, email, link };
}
