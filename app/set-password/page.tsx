import type { Metadata } from "next";
import Link from "next/link";
import styles from "../login/login.module.css";
import { SetPasswordForm } from "./set-password-form";

// The page a one-time link opens (an invitation, a password reset; lib/auth/password-links.ts).
// Signed out, like /login: the token in the link is what authorises setting the password.
// No referrer: the address carries the token until the form has taken it out.
export const metadata: Metadata = { title: "Set your password · Review Console", referrer: "no-referrer" };

export default async function SetPasswordPage({
  searchParams,
}: {
  searchParams: Promise<{ token?: string | string[] }>;
}) {
  const { token } = await searchParams;
  return (
    <main className={styles.page}>
      <div className={styles.card}>
        <h1 className={styles.title}>Set your password</h1>
        {typeof token === "string" && token ? (
          <>
            <p className={styles.lead}>Choose a password of at least 12 characters. This link works once.</p>
            <SetPasswordForm token={token} />
          </>
        ) : (
          <p className={styles.lead}>
            This address holds no link. Open the whole link an admin gave you, or <Link href="/login">sign in</Link>.
          </p>
        )}
      </div>
    </main>
  );
}
