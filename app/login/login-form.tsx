"use client";

import { type FormEvent, useId, useRef, useState, useSyncExternalStore } from "react";
import { authClient } from "@/lib/auth/client";
import { CardError, CardField } from "./card-fields";
import styles from "./login.module.css";

/** What to tell the person, from Better Auth's answer. Never says whether the email exists. */
function messageFor(status: number, code?: string): string {
  if (status === 401) return "Wrong email or password.";
  // Said only after the right password (Better Auth's admin plugin refuses the session then).
  if (status === 403 && code === "BANNED_USER") return "This account is disabled. Ask an admin.";
  // The per-account limit (lib/auth/sign-in-limit.ts) holds for 15 minutes, from any address.
  if (status === 429 && code === "TOO_MANY_FAILED_SIGN_INS") {
    return "Too many failed sign-ins for this account. Wait about 15 minutes, or ask an admin.";
  }
  if (status === 429) return "Too many sign-in attempts from here. Wait a minute, then try again.";
  if (status === 400) return "Enter a valid email address and your password.";
  return "Signing in failed. Try again in a moment.";
}

const noSubscription = () => () => {};

/** False in the server's HTML and during hydration, true once React handles events. */
function useHydrated(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}

export function LoginForm({ next }: { next: string }) {
  const hydrated = useHydrated();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const errorId = useId();
  const passwordRef = useRef<HTMLInputElement>(null);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setPending(true);
    setError(null);
    try {
      const { error: failure } = await authClient().signIn.email({
        email: String(form.get("email") ?? "").trim(),
        password: String(form.get("password") ?? ""),
      });
      if (!failure) {
        // A full navigation: every server component renders again with the new cookie.
        window.location.assign(next);
        return;
      }
      setError(messageFor(failure.status, failure.code));
    } catch {
      setError("The server could not be reached. Check your connection and try again.");
    }
    setPending(false);
    // Back to the password for the next try; the error is announced (role="alert").
    if (passwordRef.current) {
      passwordRef.current.value = "";
      passwordRef.current.focus();
    }
  }

  const described = error ? errorId : undefined;
  return (
    // Until React has hydrated, the button is disabled, which also blocks submitting with Enter:
    // the browser would otherwise send the form itself. Should it ever do so, method and action
    // send the credentials in a POST body to Better Auth, never in a URL.
    <form
      className={styles.form}
      method="post"
      action="/api/auth/sign-in/email"
      onSubmit={onSubmit}
      aria-busy={pending}
    >
      <CardField
        id="login-email"
        label="Email"
        name="email"
        type="email"
        autoComplete="username"
        required
        autoFocus
        spellCheck={false}
        errorId={described}
      />
      <CardField
        ref={passwordRef}
        id="login-password"
        label="Password"
        name="password"
        type="password"
        autoComplete="current-password"
        required
        errorId={described}
      />
      <CardError id={errorId}>{error}</CardError>
      <button className={styles.primary} type="submit" disabled={pending || !hydrated}>
        {pending ? "Signing in…" : "Sign in"}
      </button>
    </form>
  );
}
