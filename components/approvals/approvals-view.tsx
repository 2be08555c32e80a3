"use client";

import { useQuery } from "@tanstack/react-query";
import { useId, useState } from "react";
import { APPROVAL_STATUSES, type ApprovalStatus } from "@/lib/approvals/client";
import type { ApprovalView } from "@/lib/approvals";
import { Field, Select } from "@/components/ui/field";
import { Notice } from "@/components/ui/notice";
import { Section } from "@/components/ui/section";
import { EmptyState, QueryState } from "@/components/ui/states";
import { ApprovalCard } from "./approval-card";
import styles from "./approvals.module.css";
import { approvalsOptions } from "./queries";

/**
 * The requests answered on this page, kept in the list with their outcome: an approved request
 * leaves the pending list, but the person who answered it must see what became of it.
 */
function withAnswered(listed: ApprovalView[], answered: Map<string, ApprovalView>): ApprovalView[] {
  const shown = listed.map((a) => answered.get(a.id) ?? a);
  const gone = [...answered.values()].filter((a) => !listed.some((l) => l.id === a.id));
  return [...shown, ...gone].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

/**
 * The requests of one status (pending first), each with its answer form where the viewer may
 * answer. `request`: the one a person was sent to (just filed, or `already` filed before).
 */
export function ApprovalsView({
  viewerLabel,
  request,
  already = false,
}: {
  viewerLabel: string;
  request?: string;
  already?: boolean;
}) {
  const statusId = useId();
  const [status, setStatus] = useState<ApprovalStatus | "all">("pending");
  const [answered, setAnswered] = useState<Map<string, ApprovalView>>(new Map());
  const query = useQuery(approvalsOptions(status));
  const approvals = withAnswered(query.data?.approvals ?? [], answered);
  const landed = request ? approvals.find((a) => a.id === request) : undefined;
  return (
    <Section
      title="Requests"
      note={status === "pending" ? `${query.data?.waitingForYou ?? 0} waiting for you` : undefined}
      actions={
        <Field label="Status" htmlFor={statusId} hintInline>
          <Select id={statusId} value={status} onChange={(e) => setStatus(e.target.value as ApprovalStatus | "all")}>
            {[...APPROVAL_STATUSES, "all" as const].map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </Select>
        </Field>
      }
    >
      {landed && landed.status === "pending" ? (
        <Notice
          tone="info"
          role="status"
          title={already ? "This request already waits for approval" : "Held for approval"}
        >
          <p>
            {already
              ? "An identical request was filed before and still waits; nothing new was filed. "
              : "An approval policy holds this operation back: nothing has been created or run yet. "}
            Another person allowed to take it must approve it (marked below); you can withdraw it meanwhile.
          </p>
        </Notice>
      ) : null}
      <QueryState
        query={query}
        loading="Loading the requests…"
        errorTitle="The requests could not be loaded"
        isEmpty={approvals.length === 0}
        empty={<EmptyState title={status === "pending" ? "Nothing waits for approval" : `No ${status} requests`} />}
      >
        <ul className={styles.list}>
          {approvals.map((approval) => (
            <ApprovalCard
              key={approval.id}
              approval={approval}
              viewerLabel={viewerLabel}
              highlighted={approval.id === request}
              onDone={(done) => setAnswered((current) => new Map(current).set(done.id, done))}
            />
          ))}
        </ul>
      </QueryState>
    </Section>
  );
}
