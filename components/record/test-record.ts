import type { ReviewDetail } from "./types";

/** A record detail for unit tests: message 12 of invoice-417, a gap after 10. */
export function testRecord(overrides: Partial<ReviewDetail> = {}): ReviewDetail {
  const message = {
    id: "msg-order-417-12",
    kind: "invoice.reminder",
    effectKey: "invoice-417:reminder:12",
    sequenceKey: "invoice-417",
    sequence: 12,
    payload: { invoiceId: "417", schema: "2021-03" },
  };
  return {
    id: "00000000-0000-4000-8000-000000000012",
    status: "open",
    category: "sequence-gap",
    reason: "sequence-gap",
    kind: "invoice.reminder",
    messageId: message.id,
    effectKey: message.effectKey,
    sequenceKey: "invoice-417",
    sequence: 12,
    attempts: 1,
    requiredCheck: "find message 11 of invoice-417",
    version: 1,
    firstSeenAt: "2026-11-30T04:00:00.000Z",
    lastSeenAt: "2026-11-30T04:00:00.000Z",
    reportCount: 1,
    lastError: null,
    payloadSchema: "2021-03",
    source: null,
    updatedAt: "2026-11-30T04:00:00.000Z",
    messageText: JSON.stringify(message),
    message,
    revisions: [],
    history: [],
    replays: [],
    journal: null,
    sequenceState: { sequenceKey: "invoice-417", lastSequence: 10, updatedAt: "2026-11-30T04:00:00.000Z" },
    heldOnKey: [],
    ...overrides,
  };
}
