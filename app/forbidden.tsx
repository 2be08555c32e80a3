import Link from "next/link";
import { SignOutButton } from "@/components/sign-out-button";
import { currentUser } from "@/lib/auth/session";

// Rendered by forbidden() (requireUser, when the role lacks the permission), with status 403.
// The refusal has already been written to the decision log.
export default async function Forbidden() {
  const user = await currentUser();
  return (
    <main>
      <h1>Not allowed</h1>
      <p>
        {user ? (
          <>
            You are signed in as <strong>{user.email}</strong> with the role <strong>{user.role}</strong>, which may not
            open this page. The attempt has been recorded in the decision log.
          </>
        ) : (
          <>This page needs a role you do not have.</>
        )}
      </p>
      <p>
        <Link href="/reviews">Go to the review queue</Link>
      </p>
      {user ? <SignOutButton /> : null}
    </main>
  );
}
