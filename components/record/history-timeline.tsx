import { isRecord } from "@review-console/contract";
import { Section } from "@/components/ui/section";
import { StatusBadge, Time } from "./badges";
import styles from "./record.module.css";
import type { ReviewHistoryEntry } from "./types";

function detailText(value: unknown): string {
  if (typeof value === "string") return value;
  return JSON.stringify(value) ?? String(value);
}

/** An ISO instant (a `runAt`, a `claimExpiresAt`): shown in the person's zone like every other time on the page. */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** A person as the history keeps them (`{id, name, email}`: an assignee), or null. */
function personOf(value: unknown): { name: string; email: string } | null {
  if (!isRecord(value) || typeof value.email !== "string" || typeof value.id !== "string") return null;
  return { name: typeof value.name === "string" ? value.name : "", email: value.email };
}

function DetailValue({ value }: { value: unknown }) {
  const person = personOf(value);
  if (person) {
    // A name a person reads, with the email that tells two of the same name apart.
    return (
      <span>{person.name && person.name !== person.email ? `${person.name} (${person.email})` : person.email}</span>
    );
  }
  if (value === null) return <span className="rc-muted">nobody</span>;
  if (typeof value === "string" && ISO_INSTANT.test(value) && !Number.isNaN(Date.parse(value))) {
    return <Time iso={value} />;
  }
  return <code className={styles.code}>{detailText(value)}</code>;
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
            <DetailValue value={value} />
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
          {history.map((entry, index) => (
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
                  {entry.fromStatus ? (
                    <>
                      <StatusBadge status={entry.fromStatus} />
                      <span aria-hidden="true"> → </span>
                      <span className="rc-visually-hidden"> to </span>
                    </>
                  ) : index === 0 ? (
                    // The first entry made the record: it had no status before.
                    <span>created as </span>
                  ) : (
                    // No status recorded before (a claim writes only where it leads): not a new record.
                    <span>now </span>
                  )}
                  <StatusBadge status={entry.toStatus} />
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
