import Link from "next/link";
import type { ActionName } from "@/lib/reviews/client";
import { missingRange, plural, rangeText } from "../format";
import styles from "../record.module.css";
import type { ReviewDetail } from "../types";

// What each action will do to this record, said before the person commits to it.

function Key({ children }: { children: string | number | null }) {
  return <code className={styles.code}>{children ?? "(none)"}</code>;
}

function replayTarget(record: ReviewDetail): string {
  const latest = record.revisions.at(-1);
  return latest ? `revision ${latest.number}` : "the message as received";
}

export const SUBMIT_LABEL: Record<ActionName, string> = {
  replay: "Schedule the replay",
  "correct-and-replay": "Save the revision and schedule its replay",
  cancel: "Cancel the effect",
  "confirm-applied": "Confirm: applied",
  "confirm-not-applied": "Confirm: not applied, and schedule a replay",
  "skip-gap": "Skip the gap and schedule the replay",
  note: "Add the note",
};

export function ActionExplanation({ action, record }: { action: ActionName; record: ReviewDetail }) {
  const last = record.sequenceState?.lastSequence ?? 0;
  const range = missingRange(record);
  const heldInRange = (record.heldOnKey ?? []).filter(
    (h) => h.id !== record.id && range && h.sequence !== null && h.sequence >= range.from && h.sequence <= range.to,
  );
  switch (action) {
    case "note":
      return <p>Adds an entry to the history and the decision log. It changes nothing else.</p>;
    case "replay":
      return (
        <>
          <p>
            Schedules a replay of {replayTarget(record)} with the same message id <Key>{record.messageId}</Key> and
            effectKey <Key>{record.effectKey}</Key>. It goes through the decision again: if the effect already exists it
            is suppressed; if a predecessor is still missing it is held again and this record reopens.
          </p>
          {record.category === "sequence-gap" && range ? (
            <p className={styles.warnText}>
              {rangeText(range)} of {record.sequenceKey} {range.from === range.to ? "is" : "are"} still missing: this
              replay will be held again unless {range.from === range.to ? "it arrives" : "they arrive"} first.
            </p>
          ) : null}
        </>
      );
    case "correct-and-replay":
      return (
        <p>
          Saves a new revision with the corrected payload, validated against the schema of its kind, then schedules its
          replay. The message as received stays unchanged, and the id and effectKey do not change.
        </p>
      );
    case "cancel": {
      const next = record.sequence !== null && record.sequenceKey !== null && record.sequence === last + 1;
      return (
        <>
          <p>
            The effect journal marks <Key>{record.effectKey}</Key> cancelled: any later delivery with this key is
            suppressed, and the record becomes cancelled.
            {record.status === "replay-scheduled" ? " The pending replay is cancelled." : ""}
          </p>
          {record.sequenceKey !== null && record.sequence !== null ? (
            <p>
              {next
                ? `This message is next in ${record.sequenceKey} (last applied ${last}), so cancelling consumes its slot: the sequence advances to ${record.sequence} and the messages behind it can flow.`
                : `The sequence ${record.sequenceKey} does not move (last applied ${last}; this is ${record.sequence}).`}
            </p>
          ) : null}
        </>
      );
    }
    case "confirm-applied":
      return (
        <p>
          You confirm that the provider did create the effect. The journal entry for <Key>{record.effectKey}</Key>{" "}
          becomes applied with the provider&apos;s reference below
          {record.sequenceKey !== null && record.sequence !== null
            ? `, the sequence ${record.sequenceKey} advances to ${record.sequence}`
            : ""}
          , and the record is resolved. No replay is sent.
        </p>
      );
    case "confirm-not-applied":
      return (
        <p>
          You confirm that the provider has no such effect. The journal entry for <Key>{record.effectKey}</Key> is
          cleared as not applied and a replay is scheduled with the same effectKey, so the provider can still
          deduplicate it.
        </p>
      );
    case "skip-gap":
      return range ? (
        <>
          <p className={styles.lead}>
            Declares {range.from === range.to ? "message" : "messages"}{" "}
            <strong>
              {rangeText(range)} of {record.sequenceKey}
            </strong>{" "}
            lost ({plural(range.to - range.from + 1, "number")}). The range is written to the decision log, the last
            applied number becomes {range.to}, and a replay of this record ({record.sequence}) is scheduled.
          </p>
          {heldInRange.length > 0 ? (
            <p className={styles.warnText}>
              {heldInRange.length === 1 ? "A message" : "Messages"} in this range{" "}
              {heldInRange.length === 1 ? "is" : "are"} in review:{" "}
              {heldInRange.map((h, index) => (
                <span key={h.id}>
                  {index > 0 ? ", " : null}
                  <Link href={`/reviews/${h.id}`}>
                    {h.sequence} ({h.reason})
                  </Link>
                </span>
              ))}
              . Skipping declares {heldInRange.length === 1 ? "it" : "them"} lost; a later replay of{" "}
              {heldInRange.length === 1 ? "it" : "them"} would be stale.
            </p>
          ) : null}
        </>
      ) : (
        <p className={styles.warnText}>
          Nothing is missing before this record any more (last applied {last}, this is {record.sequence ?? "?"}): the
          gap has closed. Replay the record instead.
        </p>
      );
  }
}

/**
 * What the person ticks to say the action's check was done. Most actions answer the record's
 * required check (find the message, ask the provider, fix the payload); a cancel does not: it
 * decides the effect must never happen, so it names that, never the record's check (which may
 * be about the payload a cancel leaves alone).
 */
export function CheckLabel({ action, record }: { action: ActionName; record: ReviewDetail }) {
  if (action === "cancel") {
    return (
      <>
        I have checked that the effect <Key>{record.effectKey}</Key> must not happen: cancelling is final.
      </>
    );
  }
  return (
    <>
      I have done the required check: <strong>{record.requiredCheck}</strong>
    </>
  );
}
