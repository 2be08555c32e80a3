import { ACTIVE_STATUSES } from "@/lib/reviews/client";
import { rangeText } from "./format";
import type { HeldRecord, ReviewDetail } from "./types";

// Where a sequence key stands and what waits on it, from one record's detail (after River UI's
// halted-sequence view). Pure, so every case is a unit test.

const ACTIVE: readonly string[] = ACTIVE_STATUSES;

export type Slot =
  | { type: "applied"; last: number }
  | { type: "next"; n: number }
  | { type: "missing"; from: number; to: number }
  | { type: "this"; n: number }
  | { type: "held"; n: number; records: HeldRecord[] };

/**
 * The key's line from the last applied number on: every number that matters is a slot, and a run
 * of missing numbers is one slot however long it is (sequences can be large; nothing iterates them).
 * `sequence` is this record's number while it still waits, else null.
 */
export function buildSlots(last: number, sequence: number | null, held: HeldRecord[]): Slot[] {
  const byNumber = new Map<number, HeldRecord[]>();
  for (const record of held) {
    if (record.sequence === null || record.sequence <= last) continue;
    byNumber.set(record.sequence, [...(byNumber.get(record.sequence) ?? []), record]);
  }
  const points = [
    ...new Set([last + 1, ...(sequence !== null && sequence > last ? [sequence] : []), ...byNumber.keys()]),
  ].sort((a, b) => a - b);
  // The next number is only "missing" when something waits behind it; otherwise it is simply next.
  const waits = points.some((n) => n > last + 1);
  const slots: Slot[] = [{ type: "applied", last }];
  let previous = last;
  for (const n of points) {
    if (n > previous + 1) slots.push({ type: "missing", from: previous + 1, to: n - 1 });
    if (n === sequence) slots.push({ type: "this", n });
    else if (byNumber.has(n)) slots.push({ type: "held", n, records: byNumber.get(n) ?? [] });
    else if (n === last + 1 && !waits) slots.push({ type: "next", n });
    else slots.push({ type: "missing", from: n, to: n });
    previous = n;
  }
  return slots;
}

export interface SequenceModel {
  last: number;
  next: number;
  /** Other open records of the key. */
  held: HeldRecord[];
  /** Open records holding the next number, if any: what halts the key. */
  haltingHeld: HeldRecord[];
  /** What halts the key: this record, another record in review, a message never received, or nothing. */
  halt: "this" | "held" | "unreceived" | "nothing";
  /** `last+1 .. sequence-1` while this record waits behind it, else null. */
  missing: { from: number; to: number } | null;
  inReviewWithinGap: HeldRecord[];
  /** Ids of the open records that wait behind the next number (this one included when it does). */
  waiting: string[];
  slots: Slot[];
  position: string;
}

export function describeSequence(record: ReviewDetail, sequenceKey: string, sequence: number): SequenceModel {
  const last = record.sequenceState?.lastSequence ?? 0;
  const next = last + 1;
  const held = (record.heldOnKey ?? []).filter((h) => h.id !== record.id);
  const active = ACTIVE.includes(record.status);
  const haltingHeld = held.filter((h) => h.sequence === next);
  const missing = active && sequence - 1 >= next ? { from: next, to: sequence - 1 } : null;
  const inReviewWithinGap = missing
    ? held.filter((h) => h.sequence !== null && h.sequence >= missing.from && h.sequence <= missing.to)
    : [];
  const waiting = [
    ...(active && sequence > next ? [record.id] : []),
    ...held.filter((h) => h.sequence !== null && h.sequence > next).map((h) => h.id),
  ];
  // A record that no longer waits takes no place in the line of what waits.
  const slots = buildSlots(last, active ? sequence : null, held);
  const journalHere = record.journal?.effectKey === record.effectKey ? record.journal : null;

  let position: string;
  if (sequence <= last) {
    if (journalHere?.state === "applied") {
      position = `Applied: ${sequenceKey} stands at ${last}, and the effect of message ${sequence} is in the journal.`;
    } else if (journalHere?.state === "cancelled") {
      position = `Cancelled: ${sequenceKey} stands at ${last}; message ${sequence} will never be applied.`;
    } else if (active) {
      position = `Behind the key: ${sequenceKey} has already applied up to ${last}, so message ${sequence} is stale and is never applied (a replay of it is suppressed or held again).`;
    } else {
      position = `${sequenceKey} stands at ${last}; this record (${sequence}) is ${record.status}.`;
    }
  } else if (!active) {
    position = `${sequenceKey} stands at ${last}; this record (${sequence}) is ${record.status} and no longer waits.`;
  } else if (sequence === next) {
    position = `Next in line: ${sequenceKey} waits for exactly this message (${sequence}). Nothing is missing before it.`;
  } else {
    const range = { from: next, to: sequence - 1 };
    position = `Halted at ${next}: ${sequenceKey} cannot apply ${sequence} until ${rangeText(range)} ${range.from === range.to ? "is" : "are"} applied, skipped or cancelled.`;
  }

  const halt: SequenceModel["halt"] =
    active && sequence === next
      ? "this"
      : waiting.length === 0
        ? "nothing"
        : haltingHeld.length > 0
          ? "held"
          : "unreceived";

  return { last, next, held, haltingHeld, halt, missing, inReviewWithinGap, waiting, slots, position };
}
