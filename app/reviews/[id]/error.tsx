"use client";

import Link from "next/link";
import { useEffect } from "react";
import { Button, buttonClassName } from "@/components/ui/button";

// An unexpected failure while rendering one record (the API's own refusals are shown by the
// page). Production hides the server's message; the digest finds it in the server log.
export default function RecordError({ error, retry }: { error: unknown; retry: () => void }) {
  useEffect(() => {
    console.error(error);
  }, [error]);
  const digest = error instanceof Error && "digest" in error ? String(error.digest) : null;
  return (
    <main id="main" className="rc-shell-main">
      <div className="rc-page-error" role="alert">
        <h1>This record could not be shown</h1>
        <p>Something failed while reading it. Nothing was changed. Try again; the record itself is kept.</p>
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
