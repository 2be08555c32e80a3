"use client";

import Link from "next/link";
import { type FormEvent, useEffect, useId, useState } from "react";
import { authClient } from "@/lib/auth/client";
import { CardError, CardField } from "../login/card-fields";
import styles from "../login/login.module.css";

const MIN_LENGTH = 12;

/** What to tell the person, from Better Auth's answer to POST /reset-password. */
function messageFor(code: string | undefined): string {
  if (code === "INVALID_TOKEN")
    return "This link no longer works (used, expired or replaced). Ask an admin for a new one.";
  if (code === "PASSWORD_TOO_SHORT") return `The password needs at least ${MIN_LENGTH} characters.`;
  if (code === "PASSWORD_TOO_LONG") return "The password is too long (at most 1024 characters).";
  return "Setting the password failed. Try again in a moment.";
}

/** Sends the new password with the link's token to Better Auth's reset endpoint, which spends the token. */
export function SetPasswordForm({ token }: { token: string }) {
  const errorId = useId();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const [done, setDone] = useState(false);

  // The token stays in this form's memory only: out of the address bar, the history and any
  // referrer from here on.
  useEffect(() => {
    window.history.replaceState(null, "", "/set-password");
  }, []);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const password = String(form.get("password") ?? "");
    if (password.length < MIN_LENGTH) return setError(messageFor("PASSWORD_TOO_SHORT"));
    if (password !== String(form.get("repeat") ?? "")) return setError("The two passwords differ.");
    setPending(true);
    setError(null);
    try {
      const { error: failure } = await authClient().resetPassword({ newPassword: password, token });
      if (failure) setError(messageFor(failure.code));
      else setDone(true);
    } catch {
      setError("The server could not be reached. Check your connection and try again.");
    }
    setPending(false);
  }

  if (done) {
    return (
      <div role="status">
        <p>Your password is set.</p>
        <Link className={styles.primary} href="/login">
          Sign in
        </Link>
      </div>
    );
  }
  const described = error ? errorId : undefined;
  return (
    <form className={styles.form} onSubmit={onSubmit} noValidate>
      <CardField
        id="set-password"
        label="New password"
        name="password"
        type="password"
        autoComplete="new-password"
        minLength={MIN_LENGTH}
        required
        autoFocus
        errorId={described}
      />
      <CardField
        id="set-password-repeat"
        label="The same password again"
        name="repeat"
        type="password"
        autoComplete="new-password"
        required
        errorId={described}
      />
      <CardError id={errorId}>{error}</CardError>
      <button className={styles.primary} type="submit" disabled={pending}>
        {pending ? "Setting…" : "Set the password"}
      </button>
    </form>
  );
}
