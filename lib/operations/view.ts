import { canAnywhere, domainsRefused, operationScopeCondition } from "@/lib/access";
import { globalGrant, type Grant, type Role } from "@/lib/access/client";
import { db } from "@/lib/db/client";
import { Prisma } from "@/lib/generated/prisma/client";
import { seqCursor } from "@/lib/domain/seq-cursor";
import { CONTROL_FROM } from "./control";
import { operationPermission } from "./create";
import { operationOutcome } from "./outcome";
import type { ItemsQuery, OperationListQuery } from "./schema";
import type {
  DryRun,
  ItemState,
  OperationAction,
  OperationControl,
  OperationItemView,
  OperationState,
  OperationView,
} from "./types";

/** GET /api/v1/operations */
export const operationCursor = seqCursor("o");
/** GET /api/v1/operations/{id}/items (keyset over `position`) */
export const itemCursor = seqCursor("i");

export const DEFAULT_OPERATION_LIMIT = 50;

/**
 * A row of OPERATION_COLUMNS: the view's own fields with the database's types (Date), `autoPause`
 * and the progress counters as flat columns, and its `seq`.
 */
type OperationRow = Omit<
  OperationView,
  "createdAt" | "confirmedAt" | "finishedAt" | "runAt" | "autoPause" | "progress" | "controls"
> & {
  seq: bigint;
  createdAt: Date;
  confirmedAt: Date | null;
  finishedAt: Date | null;
  runAt: Date | null;
  autoPauseThreshold: number | null;
  autoPauseMinOutcomes: number;
  dispatched: number;
  outcomes: number;
  heldAgain: number;
  domains: string[];
};

const OPERATION_COLUMNS = Prisma.sql`seq, id::text AS id, action::text AS action, state::text AS state, reason,
  selection, total, created_by AS "createdBy", created_at AS "createdAt", confirmed_by AS "confirmedBy",
  confirmed_at AS "confirmedAt", finished_at AS "finishedAt", run_at AS "runAt", rate_per_second AS "ratePerSecond",
  canary_size AS "canarySize", canary_passed AS "canaryPassed", auto_pause_threshold AS "autoPauseThreshold",
  auto_pause_min_outcomes AS "autoPauseMinOutcomes", pause_reason AS "pauseReason", version, dry_run AS "dryRun",
  dispatched, outcomes, held_again AS "heldAgain", domains`;

/** Who is reading: a bare role (everywhere), or a person's or token's grants (ADR 0030). */
export type OperationReader = Role | readonly Grant[];

function grantsOfReader(who: OperationReader): readonly Grant[] {
  return typeof who === "string" ? globalGrant(who) : who;
}

/** What `who` may do with the operation now: nothing unless the action is theirs in each of its domains. */
export function controlsFor(
  row: { action: OperationAction; state: OperationState; dryRun: DryRun | null; domains?: string[] },
  who: OperationReader,
) {
  const grants = grantsOfReader(who);
  const permission = operationPermission(row.action);
  if (!canAnywhere(grants, permission) || domainsRefused(grants, permission, row.domains ?? []).length > 0) return [];
  return (Object.keys(CONTROL_FROM) as OperationControl[]).filter(
    (control) => CONTROL_FROM[control].includes(row.state) && (control !== "confirm" || row.dryRun !== null),
  );
}

function toView(row: OperationRow, byState: Partial<Record<ItemState, number>>, who: OperationReader): OperationView {
  return {
    id: row.id,
    action: row.action,
    state: row.state,
    reason: row.reason,
    selection: row.selection,
    total: row.total,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
    confirmedBy: row.confirmedBy,
    confirmedAt: row.confirmedAt?.toISOString() ?? null,
    finishedAt: row.finishedAt?.toISOString() ?? null,
    runAt: row.runAt?.toISOString() ?? null,
    ratePerSecond: row.ratePerSecond,
    canarySize: row.canarySize,
    canaryPassed: row.canaryPassed,
    autoPause:
      row.autoPauseThreshold === null
        ? null
        : { threshold: row.autoPauseThreshold, minOutcomes: row.autoPauseMinOutcomes },
    pauseReason: row.pauseReason,
    version: row.version,
    dryRun: row.dryRun,
    progress: {
      dispatched: row.dispatched,
      outcomes: row.outcomes,
      heldAgain: row.heldAgain,
      byState,
      outcome: operationOutcome(byState),
    },
    controls: controlsFor(row, who),
  };
}

async function countsByState(ids: string[]): Promise<Map<string, Partial<Record<ItemState, number>>>> {
  const rows = await db().$queryRaw<{ operationId: string; state: ItemState; n: bigint }[]>`
    SELECT operation_id::text AS "operationId", state::text AS state, count(*) AS n FROM bulk_operation_items
     WHERE operation_id = ANY(${ids}::uuid[]) GROUP BY operation_id, state`;
  const counts = new Map<string, Partial<Record<ItemState, number>>>();
  for (const row of rows) {
    const entry = counts.get(row.operationId) ?? {};
    entry[row.state] = Number(row.n);
    counts.set(row.operationId, entry);
  }
  return counts;
}

/** The operation, or null when there is none or `who` may not read it (ADR 0030: the same 404). */
export async function getOperation(id: string, who: OperationReader): Promise<OperationView | null> {
  const rows = await db().$queryRaw<OperationRow[]>`
    SELECT ${OPERATION_COLUMNS} FROM bulk_operations
     WHERE id = ${id}::uuid ${operationScopeCondition(grantsOfReader(who))}`;
  const row = rows[0];
  if (!row) return null;
  return toView(row, (await countsByState([id])).get(id) ?? {}, who);
}

/** Whether the operation exists for `who` (for a 404 before listing its items or entries; no counts). */
export async function operationExists(id: string, who: OperationReader): Promise<boolean> {
  const rows = await db().$queryRaw<unknown[]>`
    SELECT 1 FROM bulk_operations WHERE id = ${id}::uuid ${operationScopeCondition(grantsOfReader(who))}`;
  return rows.length > 0;
}

/** Newest first, keyset over `seq`. */
export async function listOperations(
  query: OperationListQuery,
  who: OperationReader,
): Promise<{ items: OperationView[]; nextCursor: string | null }> {
  const limit = query.limit ?? DEFAULT_OPERATION_LIMIT;
  const where: Prisma.Sql[] = [Prisma.sql`TRUE ${operationScopeCondition(grantsOfReader(who))}`];
  if (query.state) where.push(Prisma.sql`state = ${query.state}::"OperationState"`);
  if (query.cursor) where.push(Prisma.sql`seq < ${operationCursor.decode(query.cursor)}`);
  const rows = await db().$queryRaw<OperationRow[]>`
    SELECT ${OPERATION_COLUMNS} FROM bulk_operations
     ${where.length ? Prisma.sql`WHERE ${Prisma.join(where, " AND ")}` : Prisma.empty}
     ORDER BY seq DESC LIMIT ${limit + 1}`;
  const page = rows.slice(0, limit);
  const counts = await countsByState(page.map((r) => r.id));
  const last = page[page.length - 1];
  return {
    items: page.map((row) => toView(row, counts.get(row.id) ?? {}, who)),
    nextCursor: rows.length > limit && last ? operationCursor.encode(last.seq) : null,
  };
}

/** A row of the items query: the item with the database's types (bigint, Date) and its record's columns flat. */
type ItemRow = Omit<OperationItemView, "sequence" | "updatedAt" | "record"> &
  OperationItemView["record"] & { sequence: bigint | null; updatedAt: Date };

/** The operation's records in position order, with their state, verdict and record summary. */
export async function listOperationItems(
  operationId: string,
  query: ItemsQuery,
): Promise<{ items: OperationItemView[]; nextCursor: string | null }> {
  const limit = query.limit ?? DEFAULT_OPERATION_LIMIT;
  const where = [Prisma.sql`i.operation_id = ${operationId}::uuid`];
  if (query.state) where.push(Prisma.sql`i.state = ${query.state}::"OperationItemState"`);
  if (query.verdict) where.push(Prisma.sql`i.verdict = ${query.verdict}`);
  if (query.cursor) where.push(Prisma.sql`i.position > ${itemCursor.decode(query.cursor)}::bigint`);
  const rows = await db().$queryRaw<ItemRow[]>`
    SELECT i.position, i.review_id::text AS "reviewId", i.state::text AS state, i.verdict,
           i.verdict_detail AS "verdictDetail", i.replay_id::text AS "replayId", i.detail,
           i.sequence_key AS "sequenceKey", i.sequence, i.effect_key AS "effectKey",
           i.frozen_version AS "frozenVersion", i.updated_at AS "updatedAt",
           rr.status::text AS status, rr.category::text AS category, rr.reason, rr.kind,
           rr.message_id AS "messageId", rr.version
      FROM bulk_operation_items i JOIN review_records rr ON rr.id = i.review_id
     WHERE ${Prisma.join(where, " AND ")}
     ORDER BY i.position LIMIT ${limit + 1}`;
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map((row) => ({
      position: row.position,
      reviewId: row.reviewId,
      state: row.state,
      verdict: row.verdict,
      verdictDetail: row.verdictDetail,
      replayId: row.replayId,
      detail: row.detail,
      sequenceKey: row.sequenceKey,
      sequence: row.sequence === null ? null : Number(row.sequence),
      effectKey: row.effectKey,
      frozenVersion: row.frozenVersion,
      updatedAt: row.updatedAt.toISOString(),
      record: {
        status: row.status,
        category: row.category,
        reason: row.reason,
        kind: row.kind,
        messageId: row.messageId,
        version: row.version,
      },
    })),
    nextCursor: rows.length > limit && last ? itemCursor.encode(BigInt(last.position)) : null,
  };
}
