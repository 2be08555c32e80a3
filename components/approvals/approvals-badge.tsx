"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { approvalsOptions } from "./queries";
import styles from "./approvals.module.css";

/** The header's link to /approvals, with the number of requests the signed-in person may answer. */
export function ApprovalsBadge({ current }: { current: boolean }) {
  const query = useQuery(approvalsOptions("pending"));
  const waiting = query.data?.waitingForYou ?? 0;
  return (
    <Link
      href="/approvals"
      className={styles.badgeLink}
      aria-current={current ? "page" : undefined}
      data-testid="approvals-badge"
    >
      Approvals
      {waiting > 0 ? (
        <span className={styles.badgeCount} aria-label={`${waiting} waiting for you`}>
          {waiting}
        </span>
      ) : null}
    </Link>
  );
}
