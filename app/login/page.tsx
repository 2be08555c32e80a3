import type { Metadata } from "next";
import Link from "next/link";
import { SignOutButton } from "@/components/sign-out-button";
import { HOME_PATH, safeNextPath } from "@/lib/auth/next-path";
import { currentUser } from "@/lib/auth/session";
import { LoginForm } from "./login-form";
import styles from "./login.module.css";

export const metadata: Metadata = { title: "Sign in · Review Console" };

export default async function LoginPage({ searchParams }: { searchParams: Promise<{ next?: string | string[] }> }) {
  const { next } = await searchParams;
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
            <p className={styles.lead}>Sign in with the email and password your administrator gave you.</p>
            <LoginForm next={destination} />
          </>
        )}
      </div>
    </main>
  );
}
