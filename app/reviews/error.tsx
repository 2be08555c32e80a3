"use client";

import Link from "next/link";
import { useEffect } from "react";
import { Button, buttonClassName } from "@/components/ui/button";

// Unexpected failures while rendering a page under /reviews (the API's own errors are shown by
// the page itself). The server's message is not shown: production hides it; the digest is the
// reference to find it in the server log.
export default function ReviewsError({ error, retry }: { error: unknown; retry: () => void }) {
  useEffect(() => {
    console.error(error);
  }, [error]);
  const digest = error instanceof Error && "digest" in error ? String(error.digest) : null;
  return (
    <main id="main" className="rc-shell-main">
      <div className="rc-page-error" role="alert">
        <h1>This page could not be shown</h1>
        <p>
          Something failed on the server while preparing it. Try again; if it keeps failing, the database may be
          unavailable.
        </p>
        {digest ? <p className="rc-page-error-detail">Reference for the server log: {digest}</p> : null}
        <p className="rc-page-error-actions">
          <Button variant="primary" onClick={() => retry()}>
            Try again
          </Button>
          <Link className={buttonClassName()} href="/reviews">
            Back to the queue
          </Link>
        </p>
      </div>
    </main>
  );
}
