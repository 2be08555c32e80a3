import { CategoryBadge, StatusBadge, Time } from "./badges";
import { RecordOperations, RecordReadyBadge } from "./operation-badges";
import styles from "./record.module.css";
import type { ReviewDetail } from "./types";

function Missing() {
  return <span className="rc-muted">(missing)</span>;
}

function Mono({ value }: { value: string | number | null }) {
  return value === null || value === "" ? <Missing /> : <code className={styles.code}>{value}</code>;
}

/** The first line of an error, short enough for the header; the full text is in its section. */
function firstLine(text: string): string {
  const line = text.split("\n", 1)[0] ?? "";
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

export function RecordHeader({ record }: { record: ReviewDetail }) {
  return (
    <header className={styles.header}>
      <p className={styles.kicker}>
        Review record <code className={styles.code}>{record.id}</code>
      </p>
      <div className={styles.titleRow}>
        <h1 className={styles.title}>{record.reason}</h1>
        <CategoryBadge category={record.category} />
        <StatusBadge status={record.status} />
        <RecordReadyBadge record={record} />
      </div>
      <RecordOperations record={record} />
      <dl className={styles.meta}>
        <div>
          <dt>Kind</dt>
          <dd>
            <Mono value={record.kind} />
          </dd>
        </div>
        <div>
          <dt>Payload schema</dt>
          <dd>
            <Mono value={record.payloadSchema} />
          </dd>
        </div>
        <div>
          <dt>Message id</dt>
          <dd>
            <Mono value={record.messageId} />
          </dd>
        </div>
        <div>
          <dt>effectKey</dt>
          <dd>
            <Mono value={record.effectKey} />
          </dd>
        </div>
        <div>
          <dt>Sequence</dt>
          <dd>
            {record.sequenceKey === null && record.sequence === null ? (
              <Missing />
            ) : (
              <code className={styles.code}>
                {record.sequenceKey ?? "(no key)"}#{record.sequence ?? "?"}
              </code>
            )}
          </dd>
        </div>
        <div>
          <dt>Attempts</dt>
          <dd>
            {record.attempts}
            <span className="rc-muted">
              {" "}
              · reported {record.reportCount} {record.reportCount === 1 ? "time" : "times"}
            </span>
          </dd>
        </div>
        <div>
          <dt>First seen</dt>
          <dd>
            <Time iso={record.firstSeenAt} />
          </dd>
        </div>
        <div>
          <dt>Last seen</dt>
          <dd>
            <Time iso={record.lastSeenAt} />
          </dd>
        </div>
        <div>
          <dt>Updated</dt>
          <dd>
            <Time iso={record.updatedAt} />
          </dd>
        </div>
        <div>
          <dt>Version</dt>
          <dd>{record.version}</dd>
        </div>
      </dl>
      {record.lastError ? (
        <p className={styles.lastErrorLine}>
          <span className="rc-muted">Last error: </span>
          <code className={styles.code}>{firstLine(record.lastError)}</code>
        </p>
      ) : null}
      {/* A finished record asks nothing more of anyone: its check is kept for the record, not as a to-do. */}
      {record.status === "resolved" || record.status === "cancelled" ? (
        <section className={`${styles.check} ${styles.checkFinished}`} aria-labelledby="required-check-title">
          <h2 id="required-check-title" className={styles.checkTitle}>
            Required check · no longer needed
          </h2>
          <p className={styles.checkText}>
            <span className="rc-visually-hidden">This record is {record.status}; the check was: </span>
            {record.requiredCheck}
          </p>
        </section>
      ) : (
        <section className={styles.check} aria-labelledby="required-check-title">
          <h2 id="required-check-title" className={styles.checkTitle}>
            Required check
          </h2>
          <p className={styles.checkText}>{record.requiredCheck}</p>
        </section>
      )}
    </header>
  );
}
