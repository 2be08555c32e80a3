"use client";

import { useId, useState } from "react";
import type { ApprovalView } from "@/lib/approvals/view";
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
}: {
  approval: ApprovalView;
  onAnswered?: (text: string) => void;
}) {
  const reasonId = `${useId()}-reason`;
  const [reason, setReason] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const mutation = useAnswerApproval();

  function send(answer: "approve" | "reject") {
    if (mutation.isPending) return;
    if (!reason.trim()) {
      setProblem("Write why: it goes to the decision log.");
      document.getElementById(reasonId)?.focus();
      return;
    }
    setProblem(null);
    mutation.mutate(
      { id: approval.id, answer, reason: reason.trim() },
      {
        onSuccess: ({ approval: done }) => onAnswered?.(`${done.status === "approved" ? "Approved" : "Rejected"}.`),
        onError: (error) => setProblem(error instanceof ApiRequestError ? error.message : "No answer from the server."),
      },
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
    </div>
  );
}
