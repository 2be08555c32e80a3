"use client";

import Link from "next/link";
import { type ReactNode, useEffect } from "react";
import { Button, buttonClassName } from "@/components/ui/button";

/**
 * What an error.tsx shows for an unexpected failure while rendering a page (the API's own
 * refusals are shown by the pages). The server's message is not shown: production hides it;
 * the digest is the reference to find it in the server log.
 */
export function PageError({
  error,
  retry,
  title,
  children,
  backLabel = "Back to the queue",
}: {
  error: unknown;
  retry: () => void;
  title: string;
  children: ReactNode;
  backLabel?: string;
}) {
  useEffect(() => {
    console.error(error);
  }, [error]);
  const digest = error instanceof Error && "digest" in error ? String(error.digest) : null;
  return (
    <div className="rc-page-error" role="alert">
      <h1>{title}</h1>
      <p>{children}</p>
      {digest ? <p className="rc-page-error-detail">Reference for the server log: {digest}</p> : null}
      <p className="rc-page-error-actions">
        <Button variant="primary" onClick={() => retry()}>
          Try again
        </Button>
        <Link className={buttonClassName()} href="/reviews">
          {backLabel}
        </Link>
      </p>
    </div>
  );
}
