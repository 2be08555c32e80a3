import type { Role } from "@/lib/auth/roles";
import { can } from "@/lib/auth/roles";
import { db } from "@/lib/db/client";
import { seqCursor } from "@/lib/http/seq-cursor";
import { CONTROL_FROM } from "./control";
import { operationPermission } from "./create";
import type { ItemsQuery, OperationListQuery } from "./schema";
import type {
  DryRun,
  ItemState,
  OperationAction,
  OperationControl,
  OperationItemView,
  OperationState,
  OperationView,
  Selection,
  Verdict,
} from "./types";

/** GET /api/v1/operations */
export const operationCursor = seqCursor("o");
/** GET /api/v1/operations/{id}/items (keyset over `position`) */
export const itemCursor = seqCursor("i");

export const DEFAULT_OPERATION_LIMIT = 50;

interface OperationRow {
  seq: bigint;
  id: string;
  action: OperationAction;
  state: OperationState;
  reason: string;
  selection: Selection;
  total: number;
  created_by: string;
  created_at: Date;
  confirmed_by: string | null;
  confirmed_at: Date | null;
  finished_at: Date | null;
  run_at: Date | null;
  rate_per_second: number;
  canary_size: number;
  canary_passed: boolean;
  auto_pause_threshold: number | null;
  auto_pause_min_outcomes: number;
  pause_reason: string | null;
  version: number;
  dry_run: DryRun | null;
  dispatched: number;
  outcomes: number;
  held_again: number;
}

const OPERATION_COLUMNS = `seq, id::text, action::text, state::text, reason, selection, total, created_by, created_at,
  confirmed_by, confirmed_at, finished_at, run_at, rate_per_second, canary_size, canary_passed, auto_pause_threshold,
  auto_pause_min_outcomes, pause_reason, version, dry_run, dispatched, outcomes, held_again`;

/** What `role` may do with the operation now. */
export function controlsFor(
  row: { action: OperationAction; state: OperationState; dry_run: DryRun | null },
  role: Role,
) {
  if (!can(role, operationPermission(row.action))) return [];
  return (Object.keys(CONTROL_FROM) as OperationControl[]).filter(
    (control) => CONTROL_FROM[control].includes(row.state) && (control !== "confirm" || row.dry_run !== null),
  );
}

function toView(row: OperationRow, byState: Partial<Record<ItemState, number>>, role: Role): OperationView {
  return {
    id: row.id,
    action: row.action,
    state: row.state,
    reason: row.reason,
    selection: row.selection,
    total: row.total,
    createdBy: row.created_by,
    createdAt: row.created_at.toISOString(),
    confirmedBy: row.confirmed_by,
    confirmedAt: row.confirmed_at?.toISOString() ?? null,
    finishedAt: row.finished_at?.toISOString() ?? null,
    runAt: row.run_at?.toISOString() ?? null,
    ratePerSecond: row.rate_per_second,
    canarySize: row.canary_size,
    canaryPassed: row.canary_passed,
    autoPause:
      row.auto_pause_threshold === null
        ? null
        : { threshold: row.auto_pause_threshold, minOutcomes: row.auto_pause_min_outcomes },
    pauseReason: row.pause_reason,
    version: row.version,
    dryRun: row.dry_run,
    progress: { dispatched: row.dispatched, outcomes: row.outcomes, heldAgain: row.held_again, byState },
    controls: controlsFor(row, role),
  };
}

async function countsByState(ids: string[]): Promise<Map<string, Partial<Record<ItemState, number>>>> {
  const rows = await db().$queryRawUnsafe<{ operation_id: string; state: ItemState; n: bigint }[]>(
    `SELECT operation_id::text, state::text, count(*) AS n FROM bulk_operation_items
      WHERE operation_id = ANY($1::uuid[]) GROUP BY operation_id, state`,
    ids,
  );
  const counts = new Map<string, Partial<Record<ItemState, number>>>();
  for (const row of rows) {
    const entry = counts.get(row.operation_id) ?? {};
    entry[row.state] = Number(row.n);
    counts.set(row.operation_id, entry);
  }
  return counts;
}

export async function getOperation(id: string, role: Role): Promise<OperationView | null> {
  const rows = await db().$queryRawUnsafe<OperationRow[]>(
    `SELECT ${OPERATION_COLUMNS} FROM bulk_operations WHERE id = $1::uuid`,
    id,
  );
  const row = rows[0];
  if (!row) return null;
  return toView(row, (await countsByState([id])).get(id) ?? {}, role);
}

/** Whether the operation exists (for a 404 before listing its items or entries; no counts). */
export async function operationExists(id: string): Promise<boolean> {
  const rows = await db().$queryRawUnsafe<unknown[]>(`SELECT 1 FROM bulk_operations WHERE id = $1::uuid`, id);
  return rows.length > 0;
}

/** Newest first, keyset over `seq`. */
export async function listOperations(
  query: OperationListQuery,
  role: Role,
): Promise<{ items: OperationView[]; nextCursor: string | null }> {
  const limit = query.limit ?? DEFAULT_OPERATION_LIMIT;
  const params: unknown[] = [];
  const where: string[] = [];
  if (query.state) where.push(`state = $${params.push(query.state)}::"OperationState"`);
  if (query.cursor) where.push(`seq < $${params.push(operationCursor.decode(query.cursor))}`);
  params.push(limit + 1);
  const rows = await db().$queryRawUnsafe<OperationRow[]>(
    `SELECT ${OPERATION_COLUMNS} FROM bulk_operations ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
      ORDER BY seq DESC LIMIT $${params.length}`,
    ...params,
  );
  const page = rows.slice(0, limit);
  const counts = await countsByState(page.map((r) => r.id));
  const last = page[page.length - 1];
  return {
    items: page.map((row) => toView(row, counts.get(row.id) ?? {}, role)),
    nextCursor: rows.length > limit && last ? operationCursor.encode(last.seq) : null,
  };
}

interface ItemRow {
  position: number;
  review_id: string;
  state: ItemState;
  verdict: Verdict | null;
  verdict_detail: string | null;
  replay_id: string | null;
  detail: string | null;
  sequence_key: string | null;
  sequence: bigint | null;
  effect_key: string | null;
  frozen_version: number;
  updated_at: Date;
  status: string;
  category: string;
  reason: string;
  kind: string | null;
  message_id: string | null;
  version: number;
}

/** The operation's records in position order, with their state, verdict and record summary. */
export async function listOperationItems(
  operationId: string,
  query: ItemsQuery,
): Promise<{ items: OperationItemView[]; nextCursor: string | null }> {
  const limit = query.limit ?? DEFAULT_OPERATION_LIMIT;
  const params: unknown[] = [operationId];
  const where = ["i.operation_id = $1::uuid"];
  if (query.state) where.push(`i.state = $${params.push(query.state)}::"OperationItemState"`);
  if (query.verdict) where.push(`i.verdict = $${params.push(query.verdict)}`);
  if (query.cursor) where.push(`i.position > $${params.push(itemCursor.decode(query.cursor))}::bigint`);
  params.push(limit + 1);
  const rows = await db().$queryRawUnsafe<ItemRow[]>(
    `SELECT i.position, i.review_id::text, i.state::text, i.verdict, i.verdict_detail, i.replay_id::text, i.detail,
            i.sequence_key, i.sequence, i.effect_key, i.frozen_version, i.updated_at,
            rr.status::text, rr.category::text, rr.reason, rr.kind, rr.message_id, rr.version
       FROM bulk_operation_items i JOIN review_records rr ON rr.id = i.review_id
      WHERE ${where.join(" AND ")}
      ORDER BY i.position LIMIT $${params.length}`,
    ...params,
  );
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map((row) => ({
      position: row.position,
      reviewId: row.review_id,
      state: row.state,
      verdict: row.verdict,
      verdictDetail: row.verdict_detail,
      replayId: row.replay_id,
      detail: row.detail,
      sequenceKey: row.sequence_key,
      sequence: row.sequence === null ? null : Number(row.sequence),
      effectKey: row.effect_key,
      frozenVersion: row.frozen_version,
      updatedAt: row.updated_at.toISOString(),
      record: {
        status: row.status,
        category: row.category,
        reason: row.reason,
        kind: row.kind,
        messageId: row.message_id,
        version: row.version,
      },
    })),
    nextCursor: rows.length > limit && last ? itemCursor.encode(BigInt(last.position)) : null,
  };
}
