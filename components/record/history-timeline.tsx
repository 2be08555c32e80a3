import { isRecord } from "@review-console/contract";
import { Section } from "@/components/ui/section";
import { StatusBadge, Time } from "./badges";
import styles from "./record.module.css";
import type { ReviewHistoryEntry } from "./types";

function detailText(value: unknown): string {
  if (typeof value === "string") return value;
  return JSON.stringify(value) ?? String(value);
}

function Details({ details }: { details: unknown }) {
  if (details === null || details === undefined) return null;
  if (!isRecord(details)) return <code className={styles.code}>{detailText(details)}</code>;
  const entries = Object.entries(details);
  if (entries.length === 0) return null;
  return (
    <dl className={styles.detailList}>
      {entries.map(([key, value]) => (
        <div key={key}>
          <dt>{key}</dt>
          <dd>
            <code className={styles.code}>{detailText(value)}</code>
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** The record's decision history, oldest first: each action, who, why, and the status it moved. */
export function HistoryTimeline({ history }: { history: ReviewHistoryEntry[] }) {
  return (
    <Section title={`History (${history.length})`} layout="flow">
      {history.length === 0 ? (
        <p className="rc-muted">No history yet.</p>
      ) : (
        <ol className={styles.timeline}>
          {history.map((entry) => (
            <li key={entry.id} className={styles.timelineItem}>
              <div className={styles.timelineHead}>
                <strong>{entry.action}</strong>
                <span className="rc-muted">
                  {" "}
                  by {entry.actor} · <Time iso={entry.at} />
                </span>
              </div>
              {entry.toStatus && entry.fromStatus !== entry.toStatus ? (
                <p className={styles.transition}>
                  {entry.fromStatus ? <StatusBadge status={entry.fromStatus} /> : <span>(new)</span>}
                  <span aria-hidden="true"> → </span>
                  <span className="rc-visually-hidden"> to </span>
                  {entry.toStatus ? <StatusBadge status={entry.toStatus} /> : <span>(unchanged)</span>}
                </p>
              ) : null}
              {entry.reason ? <p className={styles.quote}>{entry.reason}</p> : null}
              <Details details={entry.details} />
            </li>
          ))}
        </ol>
      )}
    </Section>
  );
}
