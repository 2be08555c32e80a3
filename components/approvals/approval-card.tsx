"use client";

import Link from "next/link";
import type { ApprovalView } from "@/lib/approvals";
import { Badge } from "@/components/ui/badge";
import { Time } from "@/components/ui/time-zone";
import { ApprovalAnswer } from "./approval-answer";
import styles from "./approvals.module.css";
import { OperationContext, RecordContext } from "./context";
import { describeDecision, domainText } from "./describe";

const TONE = {
  pending: "warning",
  approved: "success",
  rejected: "neutral",
  expired: "neutral",
  failed: "danger",
  withdrawn: "neutral",
} as const;

/**
 * One request: what it would do (the record's kind and effect key, or the operation's selection
 * and settings), who asked and why, until when; the answer form when the viewer may answer, the
 * withdraw when it is their own. `highlighted`: the request a person just filed (or tried to again).
 */
export function ApprovalCard({
  approval,
  viewerLabel,
  highlighted = false,
  onDone,
}: {
  approval: ApprovalView;
  viewerLabel: string;
  highlighted?: boolean;
  onDone?: (done: ApprovalView) => void;
}) {
  const own = approval.requestedBy === viewerLabel;
  return (
    <li
      className={highlighted ? `${styles.card} ${styles.highlighted}` : styles.card}
      data-testid="approval"
      data-approval-id={approval.id}
      aria-current={highlighted || undefined}
    >
      <p style={{ margin: 0 }}>
        <Badge tone={TONE[approval.status]}>{approval.status}</Badge> <strong>{describeDecision(approval)}</strong> in{" "}
        {domainText(approval)}
      </p>
      {approval.reviewId ? <RecordContext reviewId={approval.reviewId} version={approval.expectedVersion} /> : null}
      {approval.decision === "operation" ? <OperationContext approval={approval} /> : null}
      {approval.operationId ? (
        <p className={styles.meta}>
          Created operation <Link href={`/operations/${approval.operationId}`}>{approval.operationId}</Link>
        </p>
      ) : null}
      <p className={styles.meta}>
        Asked by {approval.requestedBy} at <Time iso={approval.createdAt} />: “{approval.reason}”
      </p>
      {approval.status === "pending" ? (
        <p className={styles.meta}>
          Expires <Time iso={approval.expiresAt} />
        </p>
      ) : (
        <p className={styles.meta}>
          {approval.decidedBy ? `${approval.status} by ${approval.decidedBy}` : approval.status}
          {approval.decidedReason ? `: “${approval.decidedReason}”` : ""}
          {approval.problem ? ` (could not run: ${approval.problem})` : ""}
        </p>
      )}
      {approval.canDecide ? (
        <ApprovalAnswer approval={approval} onDone={onDone} />
      ) : approval.status === "pending" ? (
        <>
          <p className={styles.meta}>
            {own
              ? "Your request: another person who may take this decision must approve it."
              : "Waiting for another person allowed to take this decision."}
          </p>
          {own ? <ApprovalAnswer approval={approval} onDone={onDone} mode="withdraw" /> : null}
        </>
      ) : null}
    </li>
  );
}
