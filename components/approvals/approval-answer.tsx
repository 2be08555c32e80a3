"use client";

import { useId, useState } from "react";
import type { ApprovalView } from "@/lib/approvals";
import { ApiRequestError } from "@/lib/client/api";
import { Button } from "@/components/ui/button";
import { Field, Textarea } from "@/components/ui/field";
import { Notice } from "@/components/ui/notice";
import styles from "./approvals.module.css";
import { useAnswerApproval } from "./queries";

/** Approve or reject one request, with a reason (it goes to the decision log). */
export function ApprovalAnswer({
  approval,
  onAnswered,
  onDone,
  mode = "answer",
}: {
  approval: ApprovalView;
  onAnswered?: (text: string) => void;
  /** The request as it now is, once answered (the list shows its outcome instead of dropping it). */
  onDone?: (done: ApprovalView) => void;
  /** `withdraw`: the requester's own pending request, which they may take back. */
  mode?: "answer" | "withdraw";
}) {
  const reasonId = `${useId()}-reason`;
  const [reason, setReason] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const mutation = useAnswerApproval();

  function send(answer: "approve" | "reject" | "withdraw") {
    if (mutation.isPending) return;
    if (!reason.trim()) {
      setProblem("Write why: it goes to the decision log.");
      document.getElementById(reasonId)?.focus();
      return;
    }
    setProblem(null);
    // mutateAsync, not mutate's callbacks: the refreshed list may drop this request (and unmount
    // this form) before they would run, and the outcome must still reach the page.
    mutation.mutateAsync({ id: approval.id, answer, reason: reason.trim() }).then(
      ({ approval: done }) => {
        onDone?.(done);
        onAnswered?.(
          `${done.status === "approved" ? "Approved" : done.status === "withdrawn" ? "Withdrawn" : "Rejected"}.`,
        );
      },
      (error: unknown) => setProblem(error instanceof ApiRequestError ? error.message : "No answer from the server."),
    );
  }

  return (
    <div className={styles.answer}>
      {problem ? (
        <Notice tone="error" role="alert" title="Not answered">
          <p>{problem}</p>
        </Notice>
      ) : null}
      <Field label="Reason (required)" htmlFor={reasonId}>
        <Textarea id={reasonId} rows={2} value={reason} onChange={(event) => setReason(event.target.value)} />
      </Field>
      {mode === "withdraw" ? (
        <div className={styles.buttons}>
          <Button size="sm" onClick={() => send("withdraw")} aria-disabled={mutation.isPending || undefined}>
            Withdraw my request
          </Button>
        </div>
      ) : (
        <div className={styles.buttons}>
          <Button
            variant="primary"
            size="sm"
            onClick={() => send("approve")}
            aria-disabled={mutation.isPending || undefined}
          >
            Approve
          </Button>
          <Button
            variant="danger"
            size="sm"
            onClick={() => send("reject")}
            aria-disabled={mutation.isPending || undefined}
          >
            Reject
          </Button>
        </div>
      )}
    </div>
  );
}
