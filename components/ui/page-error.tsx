"use client";

import Link from "next/link";
import { type ReactNode, useEffect, useState } from "react";
import { Button, buttonClassName } from "@/components/ui/button";

/** What /api/health said when the page failed: the database answers, does not, or we could not tell. */
type Database = "unknown" | "up" | "down";

/**
 * Asks /api/health whether the database answers. Production hides a server error's message from
 * the browser (only the digest comes through), so the page cannot tell a database that is away
 * (a restart, a failover) from a defect by the error itself; the health check can, at that moment.
 */
function useDatabaseState(): Database {
  const [state, setState] = useState<Database>("unknown");
  useEffect(() => {
    let current = true;
    fetch("/api/health", { cache: "no-store" })
      .then((response) => current && setState(response.status === 503 ? "down" : "up"))
      .catch(() => {});
    return () => {
      current = false;
    };
  }, []);
  return state;
}

/**
 * What an error.tsx shows for an unexpected failure while rendering a page (the API's own
 * refusals are shown by the pages). The server's message is not shown: production hides it;
 * the digest is the reference to find it in the server log. When the database does not answer,
 * it says that instead: nothing is wrong with the page, and trying again once it is back works.
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
  const database = useDatabaseState();
  const digest = error instanceof Error && "digest" in error ? String(error.digest) : null;
  return (
    <div className="rc-page-error" role="alert" data-database={database}>
      {database === "down" ? (
        <>
          <h1>Database unavailable</h1>
          <p>
            The console cannot reach its database right now (a restart or a failover). Nothing was changed, and bulk
            operations and workers carry on by themselves once it is back. Try again in a few seconds.
          </p>
        </>
      ) : (
        <>
          <h1>{title}</h1>
          <p>{children}</p>
        </>
      )}
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
