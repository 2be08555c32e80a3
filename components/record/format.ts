import { ENVELOPE_KEY_FIELDS, isRecord, readEnvelopeKeys } from "@review-console/contract";
import type { ReviewDetail } from "./types";

/** The envelope a replay would send now: the latest revision's, else the message as received. */
export function latestEnvelope(record: ReviewDetail): unknown {
  const latest = record.revisions.at(-1);
  return latest ? latest.envelope : record.message;
}

/** The payload the editor starts from: the latest revision's payload, else the message's. */
export function latestPayload(record: ReviewDetail): unknown {
  const envelope = latestEnvelope(record);
  return isRecord(envelope) && "payload" in envelope ? envelope.payload : undefined;
}

export type EnvelopeField = (typeof ENVELOPE_KEY_FIELDS)[number];

/**
 * Envelope fields the latest envelope lacks (absent, empty, or not usable, e.g. a sequence sent
 * as text). Only these may be supplied by a correction; a present one never changes.
 */
export function missingEnvelopeFields(record: ReviewDetail): EnvelopeField[] {
  const keys = readEnvelopeKeys(latestEnvelope(record));
  return ENVELOPE_KEY_FIELDS.filter((field) => keys[field] === null);
}

/** `last + 1 .. sequence - 1`, or null when nothing is missing before this record. */
export function missingRange(record: ReviewDetail): { from: number; to: number } | null {
  if (record.sequence === null || record.sequenceKey === null) return null;
  const last = record.sequenceState?.lastSequence ?? 0;
  const from = last + 1;
  const to = record.sequence - 1;
  return to >= from ? { from, to } : null;
}

export function rangeText(range: { from: number; to: number }): string {
  return range.from === range.to ? `${range.from}` : `${range.from}–${range.to}`;
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
