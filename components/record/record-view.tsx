"use client";

import { type Role, type Grant } from "@/lib/access/client";
import type { Authority } from "@/lib/reviews/client";
import { RecordApproval } from "@/components/approvals/record-approval";
import { Topline } from "@/components/ui/topline";
import { ActionPanel } from "./actions/action-panel";
import { Assignment } from "./assignment";
import { Time } from "./badges";
import { HistoryTimeline } from "./history-timeline";
import { JournalSection } from "./journal-section";
import { ListNeighbours } from "./list-neighbours";
import { MessageSection } from "./message-section";
import styles from "./record.module.css";
import { RecordHeader } from "./record-header";
import { ReplaysSection } from "./replays-section";
import { ScheduledReplayControls } from "./scheduled-replay-controls";
import { RevisionsSection } from "./revisions-section";
import { SequenceView } from "./sequence-view";
import { SourceSection } from "./source-section";
import { REFRESH_MS, useRecord } from "./use-record";

/** One fixed-height line: refreshing never pushes the page down. */
function RefreshStatus({ updatedAt, fetching, error }: { updatedAt: number; fetching: boolean; error: Error | null }) {
  const asOf = <Time iso={new Date(updatedAt).toISOString()} />;
  return (
    <p className={styles.refresh}>
      {/* Only a failure is announced; the routine tick every few seconds is not. */}
      <span aria-live="polite">
        {error ? (
          <span className={styles.warnText}>Could not refresh ({error.message}); showing the record as of </span>
        ) : null}
      </span>
      {error ? (
        asOf
      ) : (
        <span>
          {fetching ? "Refreshing…" : "Live"}
          <span className="rc-muted">
            {" "}
            · refreshes every {REFRESH_MS / 1000} s · as of {asOf}
          </span>
        </span>
      )}
    </p>
  );
}

/**
 * `grants`: the person's (ADR 0030): which controls show is read against the record's domain.
 * Without them the role counts everywhere.
 */
export function RecordView({
  id,
  role,
  grants,
  userId,
}: {
  id: string;
  role: Role;
  grants?: readonly Grant[];
  userId?: string;
}) {
  const who: Authority = grants ?? role;
  const query = useRecord(id);
  const record = query.data;

  if (!record) {
    // The server prefetches the record, so this shows only if the cache lost it and the fetch failed.
    return (
      <div className={styles.page}>
        <p role="alert" className={styles.noticeError}>
          {query.error ? `The record could not be loaded: ${query.error.message}` : "Loading the record…"}
        </p>
      </div>
    );
  }

  return (
    <div className={styles.page}>
      <Topline parent={{ href: "/reviews", label: "Reviews" }} current={record.messageId ?? record.id}>
        <RefreshStatus
          updatedAt={query.dataUpdatedAt}
          fetching={query.isFetching}
          error={query.isRefetchError ? query.error : null}
        />
      </Topline>
      <ListNeighbours id={record.id} />
      <RecordHeader record={record} />
      <RecordApproval reviewId={record.id} />
      <ActionPanel record={record} role={role} who={who} />
      <ScheduledReplayControls record={record} role={who} />
      <Assignment record={record} role={who} userId={userId} />
      <div className={styles.columns}>
        <div className={styles.mainColumn}>
          <MessageSection messageText={record.messageText} />
          <RevisionsSection record={record} />
          <HistoryTimeline history={record.history} />
        </div>
        <div className={styles.sideColumn}>
          {/* What decides this category comes first: the provider's side, or the key's order. */}
          {record.category === "effect-result-unknown" ? (
            <>
              <JournalSection record={record} />
              <SequenceView record={record} />
            </>
          ) : (
            <>
              <SequenceView record={record} />
              <JournalSection record={record} />
            </>
          )}
          <ReplaysSection replays={record.replays} />
          <SourceSection record={record} />
        </div>
      </div>
    </div>
  );
}
