import { auth, issuePasswordLink, type PasswordLink } from "@/lib/auth";

/**
 * A new one-time link for the person with this email to set their password (Better Auth's reset
 * flow, see lib/auth/password-links.ts). Null when there is no such person.
 */
export function newPasswordLink(email: string): Promise<PasswordLink | null> {
  return issuePasswordLink(email, (input) => auth().api.requestPasswordReset(input));
}
