import { isRecord } from "@review-console/contract";
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

/** The consumer the record's source names, if any: the worker that reported it. */
function reportingConsumer(record: ReviewDetail): string | null {
  const source = isRecord(record.source) ? record.source : null;
  return source && typeof source.consumer === "string" && source.consumer !== "" ? source.consumer : null;
}

/**
 * No entry in this console's journal says only that: a worker reporting over HTTP keeps its own
 * journal, so the absence here is never evidence that the effect was not started or not applied
 * (read that way on an effect-result-unknown record, it leads to a second effect).
 */
function NoConsoleEntry({ record, effectKey }: { record: ReviewDetail; effectKey: string }) {
  const consumer = reportingConsumer(record);
  const worker = consumer ? (
    <>
      the reporting worker (<code className={styles.code}>{consumer}</code>) keeps its own
    </>
  ) : (
    "the reporting worker keeps its own"
  );
  return (
    <>
      <p>
        No entry for <code className={styles.code}>{effectKey}</code> in this console&apos;s journal; {worker}.
      </p>
      <p className="rc-muted">
        {record.category === "effect-result-unknown"
          ? "This does not tell whether the effect was sent: only the provider, or the worker's own journal, can."
          : "This does not tell whether the effect was started: the worker's own journal can."}
      </p>
    </>
  );
}

/** The effect journal's entry for this record's effectKey. */
export function JournalSection({ record }: { record: ReviewDetail }) {
  const { journal } = record;
  return (
    <Section title="Effect journal" layout="flow">
      {record.effectKey === null ? (
        <p>This message has no usable effectKey, so no effect can be recorded for it.</p>
      ) : journal === null ? (
        <NoConsoleEntry record={record} effectKey={record.effectKey} />
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
