"use client";

import { useQuery } from "@tanstack/react-query";
import { useId, useState } from "react";
import { APPROVAL_STATUSES, type ApprovalStatus } from "@/lib/approvals/schema";
import { Field, Select } from "@/components/ui/field";
import { Section } from "@/components/ui/section";
import { EmptyState, QueryState } from "@/components/ui/states";
import { ApprovalCard } from "./approval-card";
import styles from "./approvals.module.css";
import { approvalsOptions } from "./queries";

/** The requests of one status (pending first), each with its answer form where the viewer may answer. */
export function ApprovalsView({ viewerLabel }: { viewerLabel: string }) {
  const statusId = useId();
  const [status, setStatus] = useState<ApprovalStatus | "all">("pending");
  const query = useQuery(approvalsOptions(status));
  const approvals = query.data?.approvals ?? [];
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
      <QueryState
        query={query}
        loading="Loading the requests…"
        errorTitle="The requests could not be loaded"
        isEmpty={approvals.length === 0}
        empty={<EmptyState title={status === "pending" ? "Nothing waits for approval" : `No ${status} requests`} />}
      >
        <ul className={styles.list}>
          {approvals.map((approval) => (
            <ApprovalCard key={approval.id} approval={approval} viewerLabel={viewerLabel} />
          ))}
        </ul>
      </QueryState>
    </Section>
  );
}
