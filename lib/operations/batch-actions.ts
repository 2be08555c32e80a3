import { type Actor, grantsOf } from "@/lib/access";
import { pendingRefusal, pendingRequestsOf } from "@/lib/approvals";
import { countDecisions } from "@/lib/metrics/decisions";
import { actionRefusal } from "@/lib/reviews";
import type { Tx } from "@/lib/db/client";
import type { ReviewStatus } from "@/lib/reviews";

// The single-record `replay` and `note` actions (lib/actions/perform-action.ts) for a
// batch of a bulk operation's records, in a few set-based statements instead of eight round trips
// per record: the dispatcher's rate is bounded by this path (docs/decisions/0008). The rules are
// the same table (actionRefusal) and the version check the same; every row written has the shape
// the single action writes (tests/integration/operations-batch.int.test.ts compares them).

export interface BatchItem {
  position: number;
  reviewId: string;
  frozenVersion: number;
}

export type BatchResult =
  { position: number; ok: true; replayId: string | null } | { position: number; ok: false; detail: string };

/** A record's decision-log entry, for the caller to append last in its transaction (ADR 0003). */
export interface BatchLogEntry {
  reviewId: string;
  effectKey: string | null;
  action: string;
  details: string;
}

export interface BatchOutcome {
  results: BatchResult[];
  entries: BatchLogEntry[];
}

interface LockedRow {
  id: string;
  status: ReviewStatus;
  category: string;
  version: number;
  domain: string | null;
}

/**
 * Locks the batch's records (in id order, so two batches never wait on each other crosswise) and
 * sorts them into those the action may take and those it must skip, with the single action's
 * refusal codes and messages.
 */
async function lockAndCheck(
  tx: Tx,
  action: "replay" | "note",
  items: BatchItem[],
  actor: Actor,
): Promise<{ eligible: BatchItem[]; skipped: BatchResult[] }> {
  const rows = await tx.$queryRaw<LockedRow[]>`
    SELECT id::text AS id, status::text AS status, category::text AS category, version,
           public.domain_of_kind(kind) AS domain FROM review_records
     WHERE id = ANY(${items.map((i) => i.reviewId)}::uuid[]) ORDER BY id FOR UPDATE`;
  const byId = new Map(rows.map((r) => [r.id, r]));
  // A record whose approval request waits is not replayed by an operation (a note still goes).
  const waiting =
    action === "note"
      ? new Map()
      : await pendingRequestsOf(
          tx,
          rows.map((r) => r.id),
        );
  const eligible: BatchItem[] = [];
  const skipped: BatchResult[] = [];
  for (const item of items) {
    const record = byId.get(item.reviewId);
    const skip = (detail: string) => skipped.push({ position: item.position, ok: false, detail });
    const pending = waiting.get(item.reviewId);
    if (!record) skip(`not-found: no review record ${item.reviewId}`);
    else if (pending) {
      const refusal = pendingRefusal(pending);
      skip(`${refusal.code}: ${refusal.message}`);
    }
    // A note fits any record and changes nothing it depends on: it goes on the version of now.
    else if (action !== "note" && record.version !== item.frozenVersion) {
      skip(
        `stale-version: the record changed (version ${record.version}, you saw ${item.frozenVersion}); review it again`,
      );
    } else {
      // The operation's authority, per record and domain (ADR 0030): the dispatcher's actor carries
      // its authority's grants as they are now.
      const refusal = actionRefusal(action, record, grantsOf(actor));
      if (refusal === "role") {
        skip(`forbidden: role ${actor.role} may not ${action}${record.domain ? ` in domain ${record.domain}` : ""}`);
      } else if (refusal)
        skip(`not-allowed: ${action} is not possible on a ${record.status} ${record.category} record`);
      else eligible.push(item);
    }
  }
  return { eligible, skipped };
}

/** A record an action wrote: its position, its log entry, and the replay it scheduled if any. */
type WrittenRow = { position: number; replayId?: string } & BatchLogEntry;

/**
 * A batch action: locks and checks the records (lockAndCheck), has `write` act on the eligible
 * ones in set-based statements, and answers for every item, skipped or written.
 */
function batchAction(
  action: "replay" | "note",
  write: (tx: Tx, operationId: string, eligible: BatchItem[], actor: Actor, reason: string) => Promise<WrittenRow[]>,
) {
  return async (
    tx: Tx,
    operationId: string,
    items: BatchItem[],
    actor: Actor,
    reason: string,
  ): Promise<BatchOutcome> => {
    const { eligible, skipped } = await lockAndCheck(tx, action, items, actor);
    if (eligible.length === 0) return { results: skipped, entries: [] };
    const rows = await write(tx, operationId, eligible, actor, reason);
    return {
      results: [
        ...skipped,
        ...rows.map((r) => ({ position: r.position, ok: true as const, replayId: r.replayId ?? null })),
      ],
      entries: rows,
    };
  };
}

/**
 * Schedules a replay of each eligible record's latest revision (same id, same effectKey), as
 * the single `replay` action does: replay row (claimable now), status `replay-scheduled`, version
 * + 1, a history entry and a decision-log entry, each carrying the operation's id.
 */
export const replayBatch = batchAction(
  "replay",
  (tx, operationId, eligible, actor, reason) =>
    tx.$queryRaw<WrittenRow[]>`
    WITH e AS (
       SELECT * FROM unnest(${eligible.map((i) => i.reviewId)}::uuid[], ${eligible.map((i) => i.position)}::int[])
                  AS e(review_id, position)
     ), latest AS (
       SELECT e.review_id, e.position, COALESCE(rev.number, 0) AS number, rr.sequence_key, rr.sequence,
              rr.status, rr.version, rr.effect_key
         FROM e JOIN review_records rr ON rr.id = e.review_id
         LEFT JOIN LATERAL (SELECT number FROM review_revisions v
                             WHERE v.review_id = e.review_id ORDER BY v.number DESC LIMIT 1) rev ON true
     ), replay AS (
       INSERT INTO replays (review_id, revision_number, run_at, sequence_key, sequence, created_by, operation_id)
       SELECT review_id, number, now(), sequence_key, sequence, ${actor.label}, ${operationId}::uuid FROM latest
       RETURNING id, review_id, run_at
     ), details AS (
       SELECT l.*, r.id AS replay_id,
              jsonb_build_object('replayId', r.id::text,
                                 'runAt', to_char(r.run_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                                 'operationId', ${operationId}::uuid::text) AS change
         FROM latest l JOIN replay r ON r.review_id = l.review_id
     ), record AS (
       UPDATE review_records rr SET status = 'replay-scheduled', version = rr.version + 1, updated_at = now()
         FROM details d WHERE rr.id = d.review_id
     ), history AS (
       INSERT INTO review_history (review_id, actor, action, from_status, to_status, reason, details)
       SELECT review_id, ${actor.label}, 'replay', status, 'replay-scheduled', ${reason}, change FROM details
     )
     SELECT position, replay_id::text AS "replayId", review_id::text AS "reviewId", effect_key AS "effectKey",
            'review.replay' AS action,
            (change || jsonb_build_object('fromStatus', status::text, 'toStatus', 'replay-scheduled',
                                          'version', version + 1, 'checkDone', true))::text AS details
       FROM details ORDER BY position`,
);

/** A note on each record, as the single `note` action writes it: history, version + 1, log entry. */
export const noteBatch = batchAction(
  "note",
  (tx, operationId, eligible, actor, reason) =>
    tx.$queryRaw<WrittenRow[]>`
    WITH e AS (
       SELECT * FROM unnest(${eligible.map((i) => i.reviewId)}::uuid[], ${eligible.map((i) => i.position)}::int[])
                  AS e(review_id, position)
     ), record AS (
       UPDATE review_records rr SET version = rr.version + 1, updated_at = now()
         FROM e WHERE rr.id = e.review_id
       RETURNING rr.id, rr.status, rr.version, rr.effect_key, e.position
     ), history AS (
       INSERT INTO review_history (review_id, actor, action, from_status, to_status, reason, details)
       SELECT id, ${actor.label}, 'note', status, status, ${reason},
              jsonb_build_object('operationId', ${operationId}::text) FROM record
     )
     SELECT position, id::text AS "reviewId", effect_key AS "effectKey", 'review.note' AS action,
            jsonb_build_object('operationId', ${operationId}::text, 'fromStatus', status::text,
                               'toStatus', status::text, 'version', version, 'checkDone', true)::text AS details
       FROM record ORDER BY position`,
);

/**
 * Appends a batch's entries in position order, in one statement. Call it last in the
 * transaction: from the first append until commit, every other append waits (ADR 0003).
 */
export async function appendBatchEntries(tx: Tx, entries: BatchLogEntry[], actor: Actor, reason: string) {
  if (entries.length === 0) return;
  await tx.$executeRaw`
    INSERT INTO decision_log (actor, actor_role, action, review_id, effect_key, reason, details)
    SELECT ${actor.label}, ${actor.role}, e.action, e.review_id, e.effect_key, ${reason}, e.details::jsonb
      FROM unnest(${entries.map((e) => e.action)}::text[], ${entries.map((e) => e.reviewId)}::uuid[],
                  ${entries.map((e) => e.effectKey)}::text[], ${entries.map((e) => e.details)}::text[])
           WITH ORDINALITY AS e(action, review_id, effect_key, details, n)
     ORDER BY e.n`;
  const byAction = new Map<string, number>();
  for (const e of entries) byAction.set(e.action, (byAction.get(e.action) ?? 0) + 1);
  for (const [action, n] of byAction) countDecisions(tx, action, n);
}
