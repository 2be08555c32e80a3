"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { selectionSummary, selectionTerms } from "@/components/operations/selection-text";
import { formatCount } from "@/components/operations/model";
import { Time } from "@/components/ui/time-zone";
import type { ApprovalView } from "@/lib/approvals";
import { apiGet } from "@/lib/client/api";
import { reviewKeys } from "@/lib/client/query-keys";
import type { Selection } from "@/lib/operations/client";
import { detailPath, type ReviewDetail } from "@/components/record/types";
import styles from "./approvals.module.css";

// What an approver needs to see besides "a record" or "N records": the record's kind, effect key
// and reason, or the operation's selection, rate and canary.

/** The record a decision is about, read once (it is the record page's own answer). */
export function RecordContext({ reviewId, version }: { reviewId: string; version: number | null }) {
  const query = useQuery({
    queryKey: [...reviewKeys.detail(reviewId), "approval-context"],
    queryFn: ({ signal }) => apiGet<ReviewDetail>(detailPath(reviewId), signal),
    staleTime: 60_000,
  });
  const record = query.data;
  return (
    <dl className={styles.context} aria-label="The record">
      <div>
        <dt>Record</dt>
        <dd>
          <Link href={`/reviews/${reviewId}`}>{reviewId}</Link>
          {version !== null ? ` at version ${version}` : ""}
        </dd>
      </div>
      {record ? (
        <>
          <div>
            <dt>Message</dt>
            <dd className="rc-mono">{record.messageId ?? "(none)"}</dd>
          </div>
          <div>
            <dt>Kind</dt>
            <dd>{record.kind ?? "(none)"}</dd>
          </div>
          <div>
            <dt>Effect key</dt>
            <dd className="rc-mono">{record.effectKey ?? "(none)"}</dd>
          </div>
          <div>
            <dt>Reason</dt>
            <dd>
              {record.category} / {record.reason}
            </dd>
          </div>
          <div>
            <dt>Status now</dt>
            <dd>
              {record.status}, version {record.version}
            </dd>
          </div>
        </>
      ) : null}
    </dl>
  );
}

function selectionText(selection: Selection): string {
  const terms = selectionTerms(selection).map((t) => `${t.label} ${t.value}`);
  return terms.length > 0 ? `${selectionSummary(selection)}: ${terms.join("; ")}` : selectionSummary(selection);
}

/** A bulk operation's request: what it selects and how fast, with or without a canary. */
export function OperationContext({ approval }: { approval: ApprovalView }) {
  const asked = approval.operationRequest;
  if (!asked) return null;
  return (
    <dl className={styles.context} aria-label="The operation">
      <div>
        <dt>Selection</dt>
        <dd>{asked.selection ? selectionText(asked.selection as Selection) : "—"}</dd>
      </div>
      <div>
        <dt>Rate</dt>
        <dd>{asked.ratePerSecond !== null ? `${formatCount(asked.ratePerSecond)} per second` : "the default rate"}</dd>
      </div>
      <div>
        <dt>Canary</dt>
        <dd>{asked.canarySize ? `the first ${formatCount(asked.canarySize)} records, then a stop` : "none"}</dd>
      </div>
      {asked.runAt ? (
        <div>
          <dt>Not before</dt>
          <dd>
            <Time iso={asked.runAt} />
          </dd>
        </div>
      ) : null}
    </dl>
  );
}
