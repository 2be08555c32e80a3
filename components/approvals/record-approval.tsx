"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Notice } from "@/components/ui/notice";
import { Time } from "@/components/ui/time-zone";
import { describeDecision } from "./describe";
import { approvalsOptions } from "./queries";

/** The record page's box: a decision on this record waits for another person's approval. */
export function RecordApproval({ reviewId }: { reviewId: string }) {
  const query = useQuery(approvalsOptions("pending", reviewId));
  const waiting = query.data?.approvals[0];
  if (!waiting) return null;
  return (
    <Notice tone="warning" title="Waiting for approval by another owner" data-testid="record-approval">
      <p>
        {describeDecision(waiting)}, asked by {waiting.requestedBy}: “{waiting.reason}”. Nothing has changed yet; it
        runs when another person allowed to take it approves, and expires <Time iso={waiting.expiresAt} />.{" "}
        <Link href="/approvals">{waiting.canDecide ? "Approve or reject it" : "See the approvals"}</Link>
      </p>
    </Notice>
  );
}
