"use client";

import { useQuery } from "@tanstack/react-query";
import { VerdictBadge } from "@/components/operations/operation-badges";
import { apiPost } from "@/lib/client/api";
import { reviewKeys } from "@/lib/client/query-keys";
import type { Verdict } from "@/lib/operations/client";
import type { RecordVerdict, VerdictRequest } from "@/lib/actions";
import styles from "../record.module.css";
import { detailPath, type ReviewDetail } from "../types";

// The contract's verdict for one record's replay, before a person confirms it: the server's
// dry-run judge (POST /api/v1/reviews/{id}/verdict), never a rule restated here.

/** What a person reads first: will this replay create the effect, or end where it started? */
const HEADLINE: Record<Verdict, string> = {
  "would-apply": "Would apply: the effect would be created",
  "would-suppress": "Would be suppressed: the effect already exists, nothing would be sent again",
  "would-hold-gap": "Would be held again: a predecessor is still missing",
  "would-hold-stale": "Would be held again: a later message of its key was applied",
  "would-hold-unknown": "Would be held again: the effect's result is unknown",
  "would-wait": "Would wait: its key is in flight right now",
  invalid: "Would be held again: the message breaks the contract",
  "not-eligible": "Not possible now: the action does not fit the record",
  changed: "The record changed: judge it again",
  "would-cancel": "Would cancel the effect",
  "effect-applied": "Refused: the effect is already applied",
  "would-note": "Would add a note",
  "approval-pending": "Not now: a decision on this record waits for approval",
};

/** The verdicts under which sending the message again can create its effect. */
export function replayCanApply(verdict: Verdict): boolean {
  return verdict === "would-apply" || verdict === "would-wait";
}

/**
 * The verdict for `request` on the record as shown. Computed again when the record moves (its
 * version, its key's last applied sequence, its journal entry): the verdict is about now.
 */
export function useReplayVerdict(record: ReviewDetail, request: VerdictRequest | null) {
  const basis = {
    version: record.version,
    lastSequence: record.sequenceState?.lastSequence ?? null,
    journal: record.journal?.state ?? null,
    request,
  };
  return useQuery({
    queryKey: reviewKeys.verdict(record.id, basis),
    queryFn: () => apiPost<RecordVerdict>(`${detailPath(record.id)}/verdict`, request),
    enabled: request !== null,
    retry: false,
  });
}

/** One line: the verdict's badge, its headline and the contract's reason. */
export function VerdictLine({
  label,
  query,
}: {
  label: string;
  query: { data?: RecordVerdict; isPending: boolean; error: Error | null };
}) {
  const { data, error } = query;
  return (
    <p className={styles.verdict} aria-live="polite">
      <span className={styles.verdictLabel}>{label}:</span>{" "}
      {data ? (
        <>
          <VerdictBadge verdict={data.verdict} /> {HEADLINE[data.verdict] ?? data.verdict}
          {data.detail ? <span className="rc-muted"> ({data.detail})</span> : null}.
        </>
      ) : error ? (
        <span className={styles.warnText}>could not be computed ({error.message}).</span>
      ) : (
        <span className="rc-muted">computing…</span>
      )}
    </p>
  );
}
