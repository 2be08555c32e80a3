import Link from "next/link";
import type { ReactNode } from "react";
import { AppShell } from "@/components/app-shell";
import { currentUser } from "@/lib/auth";

// The answer to a path no page takes (404). Our own rather than Next's default, which styles
// itself with an inline <style> element that the pages' Content-Security-Policy (style elements
// only with the request's nonce, see proxy.ts) refuses. A signed-in person gets the app's header,
// so the way back to every section is there; a visitor the bare page (no session to show).
export default async function NotFound() {
  const user = await currentUser();
  const body = (
    <>
      <h1>Page not found</h1>
      <p>There is no page at this address; the link may be mistyped.</p>
      <p>
        <Link href="/reviews">Go to the review queue</Link>
      </p>
    </>
  );
  return <Frame user={user}>{body}</Frame>;
}

function Frame({ user, children }: { user: Awaited<ReturnType<typeof currentUser>>; children: ReactNode }) {
  return user ? (
    <AppShell user={user}>{children}</AppShell>
  ) : (
    <main id="main" className="rc-shell-main">
      {children}
    </main>
  );
}
