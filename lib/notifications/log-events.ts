import { db } from "@/lib/db/client";
import type { Prisma } from "@/lib/generated/prisma/client";
import {
  type Cause,
  type EntryFacts,
  eventsOfEntry,
  type LogEntry,
  type NotificationEvent,
  OPERATION_ACTIONS,
  REPORT_ACTIONS,
} from "./events";
import { enqueue, readEndpointTargets } from "./outbox";

type Tx = Prisma.TransactionClient;

const NONE = "(none)";

interface EntryRow extends LogEntry {
  recordKind: string | null;
  recordReason: string | null;
  recordErrorClass: string | null;
  recordDomain: string | null;
}

const causeKey = (c: Cause) => JSON.stringify([c.kind ?? NONE, c.reason, c.errorClass ?? NONE]);

/**
 * Of the causes the batch's reports show, those no record had before: inserted into
 * webhook_known_causes now, in the step's transaction, so each is new exactly once.
 */
async function newCauses(tx: Tx, causes: Cause[]): Promise<Set<string>> {
  if (causes.length === 0) return new Set();
  const inserted = await tx.$queryRaw<{ kind: string; reason: string; errorClass: string }[]>`
    INSERT INTO webhook_known_causes (kind, reason, error_class)
    SELECT DISTINCT * FROM unnest(${causes.map((c) => c.kind ?? NONE)}::text[], ${causes.map((c) => c.reason)}::text[],
                                  ${causes.map((c) => c.errorClass ?? NONE)}::text[])
    ON CONFLICT DO NOTHING
    RETURNING kind, reason, error_class AS "errorClass"`;
  return new Set(inserted.map((c) => JSON.stringify([c.kind, c.reason, c.errorClass])));
}

/** The domains of an operation's records (its items, frozen at creation). */
async function operationDomains(tx: Tx, operationId: string): Promise<string[]> {
  const rows = await tx.$queryRaw<{ domain: string }[]>`
    SELECT DISTINCT domain_of_kind(r.kind) AS domain
      FROM bulk_operation_items i JOIN review_records r ON r.id = i.review_id
     WHERE i.operation_id = ${operationId}::uuid AND domain_of_kind(r.kind) IS NOT NULL`;
  return rows.map((r) => r.domain);
}

export interface LogStep {
  /** False: another notifier holds the cursor, this one did nothing. */
  ran: boolean;
  entries: number;
  events: number;
  queued: number;
}

/**
 * Turns the next `batch` decision-log entries after the cursor into events and queues their
 * deliveries, in one transaction with the cursor moved past them. Only the notifier that holds
 * the cursor row (FOR UPDATE SKIP LOCKED) does it; the others return at once. seq is gapless and
 * committed in order (ADR 0003), so nothing can appear later behind the cursor.
 */
export async function processLogBatch(batch = 500): Promise<LogStep> {
  return db().$transaction(
    async (tx) => {
      const [cursor] = await tx.$queryRaw<{ lastSeq: bigint }[]>`
        SELECT last_seq AS "lastSeq" FROM webhook_log_cursor WHERE id = 1 FOR UPDATE SKIP LOCKED`;
      if (!cursor) return { ran: false, entries: 0, events: 0, queued: 0 };
      const rows = await tx.$queryRaw<EntryRow[]>`
        SELECT l.seq::text AS seq, l.at, l.actor, l.action, l.review_id::text AS "reviewId",
               l.effect_key AS "effectKey", l.reason, l.details,
               r.kind AS "recordKind", r.reason AS "recordReason", r.error_class AS "recordErrorClass",
               domain_of_kind(COALESCE(r.kind, l.details->>'kind')) AS "recordDomain"
          FROM (SELECT * FROM decision_log WHERE seq > ${cursor.lastSeq} ORDER BY seq LIMIT ${batch}) l
          LEFT JOIN review_records r ON r.id = l.review_id AND l.action IN ('review.reported', 'review.reported-again')
         ORDER BY l.seq`;
      if (rows.length === 0) return { ran: true, entries: 0, events: 0, queued: 0 };

      // A record archived since has no row: its cause is not known, so it is not called new.
      const causeOf = (row: EntryRow): Cause | null =>
        REPORT_ACTIONS.has(row.action) && row.recordReason !== null
          ? { kind: row.recordKind, reason: row.recordReason, errorClass: row.recordErrorClass }
          : null;
      const fresh = await newCauses(
        tx,
        rows.map(causeOf).filter((c): c is Cause => c !== null),
      );

      const events: NotificationEvent[] = [];
      for (const row of rows) {
        const facts: EntryFacts = { recordDomain: row.recordDomain };
        const cause = causeOf(row);
        if (cause && fresh.delete(causeKey(cause))) facts.newCause = cause;
        if (OPERATION_ACTIONS.has(row.action)) {
          const id = (row.details as { operationId?: unknown } | null)?.operationId;
          facts.operationDomains = typeof id === "string" ? await operationDomains(tx, id) : [];
        }
        events.push(...eventsOfEntry(row, facts));
      }
      const queued = events.length > 0 ? await enqueue(tx, events, await readEndpointTargets(tx)) : 0;
      await tx.$executeRaw`
        UPDATE webhook_log_cursor SET last_seq = ${rows.at(-1)!.seq}::bigint, updated_at = now() WHERE id = 1`;
      return { ran: true, entries: rows.length, events: events.length, queued };
    },
    { timeout: 30_000 },
  );
}
