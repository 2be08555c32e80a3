import type { Metadata } from "next";
import Link from "next/link";
import { SignOutButton } from "@/components/sign-out-button";
import { HOME_PATH, safeNextPath, currentUser, oidcSettings } from "@/lib/auth";
import { config } from "@/lib/config";
import { LoginForm } from "./login-form";
import { SsoButton } from "./sso-button";
import styles from "./login.module.css";

export const metadata: Metadata = { title: "Sign in · Review Console" };

/** What a refused single sign-on (`?error=` from /api/auth/callback/oidc) tells the person. */
function ssoMessage(error: string, providerName: string): string {
  if (error === "NO_GRANTS") {
    return `Your groups at ${providerName} give you no role in the Review Console. Ask an admin.`;
  }
  if (error === "BANNED_USER") return "This account is disabled. Ask an admin.";
  if (error === "PASSWORD_ACCOUNT_NOT_LINKED") {
    return "This email belongs to a person who signs in with a password. Sign in with it, or ask an admin.";
  }
  if (error === "access_denied") return `Signing in at ${providerName} was cancelled.`;
  return `Single sign-on failed (${error.slice(0, 80)}). Try again, or ask an admin.`;
}

export default async function LoginPage({
  searchParams,
}: {
  searchParams: Promise<{ next?: string | string[]; error?: string | string[] }>;
}) {
  const { next, error } = await searchParams;
  const sso = oidcSettings();
  const passwordSignIn = config().PASSWORD_SIGN_IN;
  const destination = safeNextPath(typeof next === "string" ? next : null) ?? HOME_PATH;
  const user = await currentUser();

  return (
    <main className={styles.page}>
      <div className={styles.card}>
        <h1 className={styles.title}>Review Console</h1>
        {user ? (
          <>
            <p>
              You are signed in as <strong>{user.email}</strong> ({user.role}).
            </p>
            <div className={styles.actions}>
              <Link className={styles.primary} href={destination}>
                Continue
              </Link>
              <SignOutButton className={styles.secondary} />
            </div>
          </>
        ) : (
          <>
            {sso && typeof error === "string" ? (
              <p className={styles.error} role="alert">
                {ssoMessage(error, sso.providerName)}
              </p>
            ) : null}
            {passwordSignIn ? (
              <>
                <p className={styles.lead}>Sign in with the email and password your administrator gave you.</p>
                <LoginForm next={destination} />
              </>
            ) : (
              <p className={styles.lead}>Sign in with your organisation&apos;s account.</p>
            )}
            {sso ? (
              <div className={styles.sso}>
                <SsoButton label={sso.providerName} next={destination} primary={!passwordSignIn} />
              </div>
            ) : null}
          </>
        )}
      </div>
    </main>
  );
}
