import { Section } from "@/components/ui/section";
import { StateBadge, Time } from "./badges";
import styles from "./record.module.css";
import type { ReviewDetail } from "./types";

const STATE_MEANING: Record<string, string> = {
  started: "a worker began the effect; while its lease holds, others wait",
  applied: "the effect exists; any later delivery with this key is suppressed",
  unknown: "the provider's answer was lost: nobody knows whether the effect exists, and nothing retries it",
  cancelled: "the effect was cancelled; any later delivery with this key is suppressed",
};

/** The effect journal's entry for this record's effectKey. */
export function JournalSection({ record }: { record: ReviewDetail }) {
  const { journal } = record;
  return (
    <Section title="Effect journal" layout="flow">
      {record.effectKey === null ? (
        <p>This message has no usable effectKey, so no effect can be recorded for it.</p>
      ) : journal === null ? (
        <p>
          No entry for <code className={styles.code}>{record.effectKey}</code>: the effect was never started.
        </p>
      ) : (
        <>
          <p className={styles.lead}>
            <StateBadge state={journal.state} /> {STATE_MEANING[journal.state] ?? ""}
          </p>
          <dl className={styles.kv}>
            <div>
              <dt>effectKey</dt>
              <dd>
                <code className={styles.code}>{journal.effectKey}</code>
              </dd>
            </div>
            <div>
              <dt>Message id</dt>
              <dd>
                {journal.messageId ? <code className={styles.code}>{journal.messageId}</code> : "—"}
                {journal.messageId && record.messageId && journal.messageId !== record.messageId ? (
                  <span className={styles.warnText}> (another message than this record&apos;s)</span>
                ) : null}
              </dd>
            </div>
            <div>
              <dt>Sequence</dt>
              <dd>
                {journal.sequenceKey ?? "—"}#{journal.sequence ?? "?"}
              </dd>
            </div>
            <div>
              <dt>Provider reference</dt>
              <dd>{journal.providerRef ? <code className={styles.code}>{journal.providerRef}</code> : "—"}</dd>
            </div>
            {journal.leaseExpiresAt ? (
              <div>
                <dt>Lease expires</dt>
                <dd>
                  <Time iso={journal.leaseExpiresAt} />
                </dd>
              </div>
            ) : null}
            <div>
              <dt>Started</dt>
              <dd>
                <Time iso={journal.startedAt} />
              </dd>
            </div>
            <div>
              <dt>Updated</dt>
              <dd>
                <Time iso={journal.updatedAt} />
              </dd>
            </div>
          </dl>
        </>
      )}
    </Section>
  );
}
