"use client";

import { useState } from "react";
import { authClient } from "@/lib/auth/client";

/**
 * Ends the session (Better Auth deletes it and clears the cookie), then goes to /login with a
 * full navigation, so nothing rendered for the signed-in person stays on screen.
 */
export function SignOutButton({ className }: { className?: string }) {
  const [pending, setPending] = useState(false);
  const [failed, setFailed] = useState(false);

  async function signOut() {
    setPending(true);
    setFailed(false);
    try {
      const { error } = await authClient().signOut();
      if (!error) {
        // Deliberately not router.push: a full load drops every query cached for this person.
        // eslint-disable-next-line @next/next/no-location-assign-relative-destination
        window.location.assign("/login");
        return;
      }
    } catch {
      // reported below
    }
    setFailed(true);
    setPending(false);
  }

  return (
    <>
      <button type="button" className={className} onClick={signOut} disabled={pending}>
        {pending ? "Signing out…" : "Sign out"}
      </button>
      {failed ? <span role="alert">Signing out failed; try again.</span> : null}
    </>
  );
}
