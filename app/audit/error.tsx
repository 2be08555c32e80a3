"use client";

import Link from "next/link";
import { useEffect } from "react";
import { Button, buttonClassName } from "@/components/ui/button";

// Unexpected failures while rendering the decision log page (API errors are shown in the page).
export default function AuditError({ error, retry }: { error: unknown; retry: () => void }) {
  useEffect(() => {
    console.error(error);
  }, [error]);
  const digest = error instanceof Error && "digest" in error ? String(error.digest) : null;
  return (
    <div className="rc-page-error" role="alert">
      <h1>The decision log could not be shown</h1>
      <p>Something failed on the server while preparing it. Try again; if it keeps failing, check the server log.</p>
      {digest ? <p className="rc-page-error-detail">Reference for the server log: {digest}</p> : null}
      <p className="rc-page-error-actions">
        <Button variant="primary" onClick={() => retry()}>
          Try again
        </Button>
        <Link className={buttonClassName()} href="/reviews">
          Go to the queue
        </Link>
      </p>
    </div>
  );
}
