import Link from "next/link";
import type { ReactNode } from "react";
import { Section } from "@/components/ui/section";
import { CategoryBadge, StatusBadge, Time } from "./badges";
import { plural, rangeText } from "./format";
import styles from "./record.module.css";
import { describeSequence, type Slot } from "./sequence-model";
import type { HeldRecord, ReviewDetail } from "./types";

function SlotItem({ slot }: { slot: Slot }) {
  switch (slot.type) {
    case "applied":
      return (
        <li className={styles.slot} data-state="applied">
          <span className={styles.slotNumber}>{slot.last > 0 ? `≤ ${slot.last}` : "—"}</span>
          <span className={styles.slotCaption}>{slot.last > 0 ? "applied" : "nothing applied"}</span>
        </li>
      );
    case "next":
      return (
        <li className={styles.slot} data-state="next">
          <span className={styles.slotNumber}>{slot.n}</span>
          <span className={styles.slotCaption}>next expected</span>
        </li>
      );
    case "missing":
      return (
        <li className={styles.slot} data-state="missing">
          <span className={styles.slotNumber}>{rangeText(slot)}</span>
          <span className={styles.slotCaption}>
            {slot.from === slot.to ? "missing" : `missing (${slot.to - slot.from + 1})`}
          </span>
        </li>
      );
    case "this":
      return (
        <li className={styles.slot} data-state="this" aria-current="true">
          <span className={styles.slotNumber}>{slot.n}</span>
          <span className={styles.slotCaption}>this record</span>
        </li>
      );
    case "held":
      return (
        <li className={styles.slot} data-state="held">
          <span className={styles.slotNumber}>{slot.n}</span>
          <span className={styles.slotCaption}>
            {slot.records.map((record, index) => (
              <span key={record.id}>
                {index > 0 ? ", " : null}
                <Link href={`/reviews/${record.id}`}>in review</Link>
              </span>
            ))}
          </span>
        </li>
      );
  }
}

function HeldTable({ held, sequenceKey }: { held: HeldRecord[]; sequenceKey: string }) {
  if (held.length === 0) {
    return <p className="rc-muted">No other open records on {sequenceKey}.</p>;
  }
  const sorted = [...held].sort((a, b) => (a.sequence ?? 0) - (b.sequence ?? 0));
  return (
    <div className={styles.tableScroll}>
      <table className={styles.table}>
        <caption>Other open records on {sequenceKey}</caption>
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">Record</th>
            <th scope="col">Status</th>
            <th scope="col">Category</th>
          </tr>
        </thead>
        <tbody>
          {sorted.map((record) => (
            <tr key={record.id}>
              <td>{record.sequence ?? "?"}</td>
              <td>
                <Link href={`/reviews/${record.id}`}>{record.reason}</Link>
              </td>
              <td>
                <StatusBadge status={record.status} />
              </td>
              <td>
                <CategoryBadge category={record.category} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Where the key stands, what halts it, what is missing and how much waits behind (after River UI). */
export function SequenceView({ record }: { record: ReviewDetail }) {
  const { sequenceKey, sequence, sequenceState } = record;
  if (sequenceKey === null || sequence === null) {
    return (
      <Section title="Sequence" layout="flow">
        <p>
          This message has no usable {sequenceKey === null ? "sequenceKey" : "sequence number"}, so its place in an
          order cannot be evaluated until the envelope is corrected.
        </p>
      </Section>
    );
  }
  const model = describeSequence(record, sequenceKey, sequence);
  const { last, next, held, haltingHeld, missing, inReviewWithinGap, waiting, slots, position } = model;
  let haltedBy: ReactNode;
  if (model.halt === "this") {
    haltedBy = <span>this record (message {sequence})</span>;
  } else if (model.halt === "nothing") {
    haltedBy = <span>nothing waits</span>;
  } else if (model.halt === "held") {
    haltedBy = (
      <span>
        message {next}, in review:{" "}
        {haltingHeld.map((h, index) => (
          <span key={h.id}>
            {index > 0 ? ", " : null}
            <Link href={`/reviews/${h.id}`}>{h.reason}</Link> ({h.status})
          </span>
        ))}
      </span>
    );
  } else {
    haltedBy = <span>message {next}, never received</span>;
  }

  return (
    <Section title="Sequence" layout="flow">
      <p className={styles.lead}>{position}</p>
      <ol className={styles.strip} aria-label={`Sequence ${sequenceKey}, from the last applied number`}>
        {slots.map((slot, index) => (
          <SlotItem key={index} slot={slot} />
        ))}
      </ol>
      <dl className={styles.kv}>
        <div>
          <dt>Key</dt>
          <dd>
            <code className={styles.code}>{sequenceKey}</code>
          </dd>
        </div>
        <div>
          <dt>Last applied</dt>
          <dd>
            {sequenceState ? (
              <>
                {last}{" "}
                <span className="rc-muted">
                  · <Time iso={sequenceState.updatedAt} />
                </span>
              </>
            ) : (
              <span>none (no state for this key yet)</span>
            )}
          </dd>
        </div>
        <div>
          <dt>This record</dt>
          <dd>{sequence}</dd>
        </div>
        <div>
          <dt>Halted by</dt>
          <dd>{haltedBy} </dd>
        </div>
        <div>
          <dt>Missing</dt>
          <dd>
            {missing ? (
              <>
                {rangeText(missing)}{" "}
                <span className="rc-muted">
                  ({plural(missing.to - missing.from + 1, "number")}
                  {inReviewWithinGap.length > 0 ? `, ${inReviewWithinGap.length} of them in review` : ""})
                </span>
              </>
            ) : (
              <span>nothing</span>
            )}
          </dd>
        </div>
        {record.heldOnKey ? (
          <div>
            <dt>Waiting behind the halt</dt>
            <dd>{plural(waiting.length, "record")}</dd>
          </div>
        ) : null}
      </dl>
      {record.heldOnKey ? <HeldTable held={held} sequenceKey={sequenceKey} /> : null}
      <p>
        <Link href={`/reviews?sequenceKey=${encodeURIComponent(sequenceKey)}`}>All records of {sequenceKey}</Link>
      </p>
    </Section>
  );
}
