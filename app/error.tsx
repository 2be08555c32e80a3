"use client";

import { PageError } from "@/components/ui/page-error";

// Failures no section's own error.tsx catches: the home page, the sign-in pages, and the layouts
// of /operations, /audit and /admin (which read the session, so a database that is away ends here).
export default function RootError({ error, retry }: { error: unknown; retry: () => void }) {
  return (
    <main id="main" className="rc-shell-main">
      <PageError error={error} retry={retry} title="This page could not be shown">
        Something failed on the server while preparing it. Nothing was changed. Try again; if it keeps failing, check
        the server log.
      </PageError>
    </main>
  );
}
