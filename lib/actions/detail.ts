import { operationsOfRecord } from "@/lib/operations";
import { db } from "@/lib/db/client";
import { actionsNeedingApproval } from "@/lib/approvals";
import { domainOfKind, type Grant, recordScope, scopeCondition } from "@/lib/access";
import type { ReviewStatus as DbReviewStatus } from "@/lib/generated/prisma/enums";
import type { ReviewListItem, ReviewStatus } from "@/lib/reviews";

/** Prisma names enum members with `_`; the API and the database use `-`. */
export function apiEnum<T extends string>(value: string): T {
  return value.replaceAll("_", "-") as T;
}

export function dbStatus(status: ReviewStatus): DbReviewStatus {
  return status.replaceAll("-", "_") as DbReviewStatus;
}

const num = (value: bigint | null) => (value === null ? null : Number(value));
const iso = (value: Date | null) => (value === null ? null : value.toISOString());

/**
 * A record as its page and GET /api/v1/reviews/{id} show it. `readerGrants`: whose eyes; what the
 * record lists of other records (heldOnKey) is limited to the records they may read (ADR 0038).
 * Whether they may read this record at all is the caller's check (mayRead).
 */
export async function getReview(id: string, readerGrants: readonly Grant[]) {
  const client = db();
  const record = await client.reviewRecord.findUnique({
    where: { id },
    // Prisma would hand back the parsed message; the exact text is read below instead.
    omit: { message: true },
    include: {
      revisions: { orderBy: { number: "asc" } },
      history: { orderBy: { id: "asc" } },
      replays: { orderBy: { createdAt: "asc" } },
      assignee: { select: { id: true, name: true, email: true } },
    },
  });
  if (!record) return null;
  const [journal, sequence, message, heldOnKey, operations, domain] = await Promise.all([
    record.effectKey ? client.effectJournal.findUnique({ where: { effectKey: record.effectKey } }) : null,
    record.sequenceKey ? client.sequenceState.findUnique({ where: { sequenceKey: record.sequenceKey } }) : null,
    client.$queryRaw<{ text: string }[]>`SELECT message::text AS text FROM review_records WHERE id = ${id}::uuid`,
    record.sequenceKey ? heldRecordsOnKey(record.sequenceKey, id, readerGrants) : [],
    operationsOfRecord(id, readerGrants),
    domainOfKind(record.kind),
  ]);
  // Ready (docs/operations.md, "Gap release"): the same rule as the list's `readyCondition`, from
  // the key's state read above; a key without a state row has applied nothing.
  const ready =
    record.status === "open" &&
    record.category === "sequence_gap" &&
    record.reason === "sequence-gap" &&
    record.sequenceKey !== null &&
    record.sequence !== null &&
    sequence !== null &&
    sequence.lastSequence >= record.sequence - 1n;
  const item: ReviewListItem = {
    id: record.id,
    status: apiEnum<ReviewStatus>(record.status),
    category: apiEnum(record.category),
    reason: record.reason,
    kind: record.kind,
    messageId: record.messageId,
    effectKey: record.effectKey,
    sequenceKey: record.sequenceKey,
    sequence: num(record.sequence),
    attempts: record.attempts,
    requiredCheck: record.requiredCheck,
    version: record.version,
    firstSeenAt: record.firstSeenAt.toISOString(),
    lastSeenAt: record.lastSeenAt.toISOString(),
    ready,
    assignee: record.assignee,
  };
  return {
    ...item,
    /** The domain of the record's kind (ADR 0030), or null: what decides who sees it and who acts. */
    domain,
    reportCount: record.reportCount,
    errorClass: record.errorClass,
    lastError: record.lastError,
    payloadSchema: record.payloadSchema,
    source: record.source,
    updatedAt: record.updatedAt.toISOString(),
    /** The message as JSON text, byte for byte as the consumer sent it. */
    messageText: message[0]?.text ?? "null",
    revisions: record.revisions.map((r) => ({
      number: r.number,
      envelope: r.envelope,
      reason: r.reason,
      createdBy: r.createdBy,
      createdAt: r.createdAt.toISOString(),
    })),
    history: record.history.map((h) => ({
      id: Number(h.id),
      at: h.at.toISOString(),
      actor: h.actor,
      action: h.action,
      fromStatus: h.fromStatus ? apiEnum(h.fromStatus) : null,
      toStatus: h.toStatus ? apiEnum(h.toStatus) : null,
      reason: h.reason,
      details: h.details,
    })),
    replays: record.replays.map((r) => ({
      id: r.id,
      revisionNumber: r.revisionNumber,
      state: apiEnum(r.state),
      runAt: r.runAt.toISOString(),
      claimedBy: r.claimedBy,
      claimExpiresAt: iso(r.claimExpiresAt),
      detail: r.detail,
      createdBy: r.createdBy,
      createdAt: r.createdAt.toISOString(),
      completedAt: iso(r.completedAt),
    })),
    journal: journal && {
      effectKey: journal.effectKey,
      state: journal.state,
      messageId: journal.messageId,
      sequenceKey: journal.sequenceKey,
      sequence: num(journal.sequence),
      providerRef: journal.providerRef,
      leaseExpiresAt: iso(journal.leaseExpiresAt),
      startedAt: journal.startedAt.toISOString(),
      updatedAt: journal.updatedAt.toISOString(),
    },
    // docs/api.md names both the item's sequence number and the key's state `sequence`; the number
    // keeps the name (the item's fields stay as in the list), the state is `sequenceState`.
    // docs/decisions/0004-detail-sequence-state.md.
    sequenceState: sequence && {
      sequenceKey: sequence.sequenceKey,
      lastSequence: Number(sequence.lastSequence),
      updatedAt: sequence.updatedAt.toISOString(),
    },
    heldOnKey,
    /** The bulk operations this record belongs to, newest first (docs/operations.md). */
    operations,
    /** The actions on this record an approval policy would hold for a second person (ADR 0031). */
    approvalNeeded: await actionsNeedingApproval(domain),
  };
}

/**
 * Other records of the same sequence key still awaiting an outcome: what else the key holds, of
 * the records the reader may see (a scoped reader is not told other domains' record ids).
 */
async function heldRecordsOnKey(sequenceKey: string, exceptId: string, readerGrants: readonly Grant[]) {
  const scope = await recordScope(readerGrants, "reviews.read");
  const rows = await db().$queryRaw<
    { id: string; sequence: bigint | null; status: ReviewStatus; category: string; reason: string }[]
  >`
    SELECT id::text AS id, sequence, status::text AS status, category::text AS category, reason FROM review_records
     WHERE sequence_key = ${sequenceKey} AND id <> ${exceptId}::uuid
       AND status IN ('open', 'replay-scheduled', 'replaying') ${scopeCondition(scope)}
     ORDER BY sequence NULLS LAST, seq LIMIT 100`;
  return rows.map((r) => ({ ...r, sequence: num(r.sequence) }));
}

export type ReviewDetail = NonNullable<Awaited<ReturnType<typeof getReview>>>;
