import { isRecord } from "@review-console/contract";
import { Section } from "@/components/ui/section";
import styles from "./record.module.css";
import type { ReviewDetail } from "./types";

const FIELDS = [
  ["transport", "Transport"],
  ["queue", "Queue / stream"],
  ["consumer", "Consumer"],
  ["transportId", "Transport id"],
] as const;

/** Where the message came from and the last error its consumer saw. */
export function SourceSection({ record }: { record: ReviewDetail }) {
  const source = isRecord(record.source) ? record.source : null;
  return (
    <Section title="Source and last error" layout="flow">
      {source ? (
        <dl className={styles.kv}>
          {FIELDS.map(([key, label]) => (
            <div key={key}>
              <dt>{label}</dt>
              <dd>
                {typeof source[key] === "string" && source[key] !== "" ? (
                  <code className={styles.code}>{String(source[key])}</code>
                ) : (
                  "—"
                )}
              </dd>
            </div>
          ))}
        </dl>
      ) : (
        <p className="rc-muted">The consumer reported no source.</p>
      )}
      <h3 className={`${styles.itemTitle} ${styles.spaced}`}>Last error</h3>
      {record.lastError ? (
        <pre className={styles.preError} tabIndex={0} aria-label="Last error">
          {record.lastError}
        </pre>
      ) : (
        <p className="rc-muted">None reported.</p>
      )}
    </Section>
  );
}
