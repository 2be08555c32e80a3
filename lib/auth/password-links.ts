import { AsyncLocalStorage } from "node:async_hooks";
import { appendStandaloneDecision } from "@/lib/audit";
import { log } from "@/lib/log";

// One-time links to set a password (an invitation, a reset): Better Auth's own password-reset
// flow. It makes the token (stored hashed, `verification.storeIdentifier`), lets it expire, and
// spends it once at POST /api/auth/reset-password, which sets the password with our Argon2id hash
// and ends the person's sessions. Better Auth would mail the link through `sendResetPassword`;
// the console has no mail, so the link goes back to the admin who asked for it, who passes it on.

/** How long a link works: long enough for an invitation to reach someone, then useless. */
export const PASSWORD_LINK_SECONDS = 48 * 60 * 60;

/** The console's page that takes the token (app/set-password). */
export const SET_PASSWORD_PATH = "/set-password";

const asked = new AsyncLocalStorage<{ token?: string }>();

/**
 * Better Auth's `emailAndPassword.sendResetPassword`: hands the token to the issuePasswordLink
 * call that asked for it. Anything else that asks (nothing should: the endpoint is not served
 * over HTTP) gets nothing sent anywhere.
 */
export async function deliverPasswordLink({ token, user }: { token: string; user: { id: string } }): Promise<void> {
  const slot = asked.getStore();
  if (slot) slot.token = token;
  else log.warn({ userId: user.id }, "a password link was made outside issuePasswordLink; it is not delivered");
}

export interface PasswordLink {
  /** `/set-password?token=…`: the console's origin goes in front. */
  path: string;
  expiresAt: Date;
}

/**
 * A new one-time link for the person with this email, through Better Auth's
 * requestPasswordReset (`requestPasswordReset` is passed in: this module stays free of the
 * instance, which imports it). Null when no such person exists.
 */
export async function issuePasswordLink(
  email: string,
  requestPasswordReset: (input: { body: { email: string } }) => Promise<unknown>,
): Promise<PasswordLink | null> {
  const slot: { token?: string } = {};
  const expiresAt = new Date(Date.now() + PASSWORD_LINK_SECONDS * 1000);
  await asked.run(slot, () => requestPasswordReset({ body: { email } }));
  if (!slot.token) return null;
  return { path: `${SET_PASSWORD_PATH}?token=${encodeURIComponent(slot.token)}`, expiresAt };
}

/**
 * Better Auth's `emailAndPassword.onPasswordReset`: a link was spent and the person has a new
 * password (their sessions were ended with it). Logged after Better Auth's own transaction: a
 * crash in between loses the entry, not the password.
 */
export async function recordPasswordSet({ user }: { user: { id: string; email: string } }): Promise<void> {
  await appendStandaloneDecision({
    actor: `user:${user.email}`,
    action: "user.password-set",
    reason: "set a new password through a one-time link",
    details: { userId: user.id, email: user.email },
  });
}
