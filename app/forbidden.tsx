import Link from "next/link";
import { AppShell } from "@/components/app-shell";
import { currentUser } from "@/lib/auth";

// Rendered by forbidden() (requireUser, when the role lacks the permission), with status 403.
// The refusal has already been written to the decision log. Inside the app's header (the sections
// this role may open, who is signed in, sign out), so the person is not stranded.
export default async function Forbidden() {
  const user = await currentUser();
  if (!user) {
    return (
      <main id="main" className="rc-shell-main">
        <h1>Not allowed</h1>
        <p>This page needs a role you do not have.</p>
        <p>
          <Link href="/reviews">Go to the review queue</Link>
        </p>
      </main>
    );
  }
  return (
    <AppShell user={user}>
      <h1>Not allowed</h1>
      <p>
        You are signed in as <strong>{user.email}</strong> with the role <strong>{user.role}</strong>, which may not
        open this page. The attempt has been recorded in the decision log.
      </p>
      <p>
        <Link href="/reviews">Go to the review queue</Link>
      </p>
    </AppShell>
  );
}
