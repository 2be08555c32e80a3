"use client";

import { PageError } from "@/components/ui/page-error";

// Unexpected failures while rendering a page under /reviews.
export default function ReviewsError({ error, retry }: { error: unknown; retry: () => void }) {
  return (
    <main id="main" className="rc-shell-main">
      <PageError error={error} retry={retry} title="This page could not be shown">
        Something failed on the server while preparing it. Try again; if it keeps failing, the database may be
        unavailable.
      </PageError>
    </main>
  );
}
