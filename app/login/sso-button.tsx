"use client";

import { useState, useSyncExternalStore } from "react";
import { authClient, OIDC_PROVIDER_ID } from "@/lib/auth/client";
import styles from "./login.module.css";

/**
 * "Sign in with <provider>": Better Auth starts the authorization request (state, PKCE, nonce)
 * and answers with the provider's URL; the browser goes there, and comes back to
 * /api/auth/callback/oidc, which signs the person in and sends them on to `next` (or back here
 * with ?error= when the sign-in was refused).
 */
const noSubscription = () => () => {};

export function SsoButton({ label, next, primary }: { label: string; next: string; primary: boolean }) {
  // Disabled until React handles the click (in the server's HTML it would do nothing).
  const hydrated = useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
  const [pending, setPending] = useState(false);
  const [failed, setFailed] = useState(false);

  async function start() {
    setPending(true);
    setFailed(false);
    try {
      const { data, error } = await authClient().signIn.social({
        provider: OIDC_PROVIDER_ID,
        callbackURL: next,
        errorCallbackURL: `/login?next=${encodeURIComponent(next)}`,
        disableRedirect: true,
      });
      if (!error && data?.url) {
        window.location.assign(data.url);
        return;
      }
    } catch {
      // shown below
    }
    setFailed(true);
    setPending(false);
  }

  return (
    <>
      <button
        className={primary ? styles.primary : styles.secondary}
        type="button"
        onClick={start}
        disabled={pending || !hydrated}
      >
        {pending ? "Redirecting…" : `Sign in with ${label}`}
      </button>
      {failed ? (
        <p className={styles.error} role="alert">
          {`${label} could not be reached. Try again in a moment.`}
        </p>
      ) : null}
    </>
  );
}
