import { type Actor, systemActor, grantsOf, canIn, domainsWhere, domainOfKind, mayRead, actorRef } from "@/lib/access";
import type { Grant } from "@/lib/access/client";
import { type DomainPattern, matchDomain } from "@/lib/domain/kinds";
import { appendDecision } from "@/lib/audit";
import { defaultKindRegistry } from "@review-console/contract";
import { db } from "@/lib/db/client";
import { forbidden, notFound, Refusal } from "@/lib/domain/refusal";
import { Prisma } from "@/lib/generated/prisma/client";
import { log } from "@/lib/log";
import { performAction } from "@/lib/actions/perform-action";
import { AUTO_REPLAY_PERMISSION, pauseSwitch, switchAuthorityLost } from "@/lib/operations";
import type { KindAutoReplay } from "@/lib/operations";

// Gap release (docs/operations.md): a held sequence-gap record is "ready" once its missing
// predecessors have been applied. Per kind, an owner may let ready records replay by themselves;
// the dispatcher then schedules each one's replay through the single-record action.

/** Who schedules the automatic replays; its decision-log entries name who enabled them. */
export const AUTO_REPLAY_ACTOR: Actor = systemActor({
  kind: "token",
  id: "system:auto-replay",
  label: "system:auto-replay",
  role: "owner",
});

/** Replays scheduled per call at most; the next tick takes the rest. */
export const AUTO_REPLAY_BATCH = 200;

interface SettingRow {
  kind: string;
  autoReplayReady: boolean;
  updatedBy: string;
  updatedAt: Date;
  pausedReason: string | null;
}

/**
 * SQL: a CTE `ready` of the (sequence_key, sequence) pairs of ready records. It reads only the
 * partial index `review_records_open_gaps` (an index-only scan) joined with sequence_state, so
 * the heap is visited for the ready records alone, not for every held one: with 175,000 open gap
 * records this measured about 7x faster than filtering the records by `readyCondition`.
 */
const READY_PAIRS = Prisma.sql`ready AS MATERIALIZED (
    SELECT DISTINCT g.sequence_key, g.sequence
      FROM review_records g
      JOIN sequence_state ss ON ss.sequence_key = g.sequence_key
     WHERE g.status = 'open' AND g.category = 'sequence-gap' AND g.reason = 'sequence-gap' AND g.sequence IS NOT NULL
       AND ss.last_sequence >= g.sequence - 1)`;

/** The ready records themselves: open gap records at one of the ready pairs. */
const READY_RECORDS = Prisma.sql`ready
  JOIN review_records r ON r.sequence_key = ready.sequence_key AND r.sequence = ready.sequence
   AND r.status = 'open' AND r.category = 'sequence-gap' AND r.reason = 'sequence-gap'`;

/** Ready records per kind, for the given kinds. */
async function readyCounts(kinds: string[]): Promise<Map<string, number>> {
  if (kinds.length === 0) return new Map();
  const rows = await db().$queryRaw<{ kind: string; ready: number }[]>`
    WITH ${READY_PAIRS}
    SELECT r.kind, count(*)::int AS ready FROM ${READY_RECORDS}
     WHERE r.kind = ANY(${kinds}::text[])
     GROUP BY r.kind`;
  return new Map(rows.map((row) => [row.kind, row.ready]));
}

function view(kind: string, setting: SettingRow | undefined, ready: number): KindAutoReplay {
  return {
    kind,
    autoReplayReady: setting?.autoReplayReady ?? false,
    pausedReason: setting?.pausedReason ?? null,
    updatedBy: setting?.updatedBy ?? null,
    updatedAt: setting?.updatedAt.toISOString() ?? null,
    ready,
  };
}

/**
 * Every kind of the registry and every kind with a setting, sorted by kind; for a reader of some
 * domains only (ADR 0030), the kinds of those domains.
 */
export async function listAutoReplaySettings(grants?: readonly Grant[]): Promise<KindAutoReplay[]> {
  const settings: SettingRow[] = await db().kindSetting.findMany();
  const byKind = new Map(settings.map((s) => [s.kind, s]));
  let kinds = [...new Set([...defaultKindRegistry.kinds(), ...byKind.keys()])].sort((a, b) =>
    a < b ? -1 : a > b ? 1 : 0,
  );
  const where = grants ? domainsWhere(grants, "operations.read") : "all";
  if (where !== "all") {
    const patterns = await db().$queryRaw<DomainPattern[]>`SELECT pattern, domain FROM domain_kinds`;
    kinds = kinds.filter((kind) => where.includes(matchDomain(kind, patterns) ?? ""));
  }
  const counts = await readyCounts(kinds);
  return kinds.map((kind) => view(kind, byKind.get(kind), counts.get(kind) ?? 0));
}

/**
 * Turns automatic replay of ready records on or off for one kind, logged (last write of the
 * transaction) as `kind.auto-replay-enabled` / `kind.auto-replay-disabled`. A kind the registry
 * does not know and that has no setting yet is accepted only when records of that kind exist;
 * otherwise it is refused as not found and nothing is written.
 */
export async function setAutoReplay(
  kind: string,
  enabled: boolean,
  reason: string,
  actor: Actor,
): Promise<KindAutoReplay> {
  // A kind of another domain is not there for the actor (404, as an unknown kind); one of theirs
  // they may read but not resolve in is a 403 (ADR 0030).
  const grants = grantsOf(actor);
  const domain = await domainOfKind(kind);
  if (!mayRead(grants, domain)) throw notFound(`no kind ${kind}: not registered and no records of it`);
  if (!canIn(grants, AUTO_REPLAY_PERMISSION, domain)) {
    throw forbidden("forbidden", `role ${actor.role} may not switch automatic replay in domain ${domain ?? "(none)"}`, {
      details: { kind, domain },
    });
  }
  const setting = await db().$transaction(async (tx) => {
    if (!defaultKindRegistry.get(kind)) {
      const known = await tx.$queryRaw<unknown[]>`
        SELECT 1 FROM kind_settings WHERE kind = ${kind}
         UNION ALL
        (SELECT 1 FROM review_records WHERE kind = ${kind} LIMIT 1)
        LIMIT 1`;
      if (known.length === 0) return null;
    }
    const now = new Date();
    // Turning it on (again) puts it on this actor's authority and lifts a pause for lost
    // authority (lib/operations/authority.ts); turning it off ends the pause too.
    const change = {
      autoReplayReady: enabled,
      updatedBy: actor.label,
      updatedAt: now,
      authorityActor: actorRef(actor),
    };
    const row = await tx.kindSetting.upsert({
      where: { kind },
      create: { kind, ...change },
      update: { ...change, pausedReason: null },
    });
    await appendDecision(tx, {
      actor: actor.label,
      actorRole: actor.role,
      action: enabled ? "kind.auto-replay-enabled" : "kind.auto-replay-disabled",
      reason,
      details: { kind, enabled },
    });
    return row;
  });
  if (!setting) throw notFound(`no kind ${kind}: not registered and no records of it`);
  const counts = await readyCounts([kind]);
  return view(kind, setting, counts.get(kind) ?? 0);
}

interface ReadyRow {
  id: string;
  version: number;
  kind: string;
  updatedBy: string;
  updatedAt: Date;
}

/**
 * After a slow scan (IDLE_AFTER_MS or more) that found nothing, the next one waits ten times as
 * long as it took (at most AUTO_REPLAY_MAX_IDLE_MS), unless the enabled kinds change meanwhile.
 * A scan of a few thousand held records takes about a millisecond and runs every tick; one of
 * hundreds of thousands takes tens of milliseconds and should not run five times a second for
 * nothing. The price is a ready record replayed up to that much later.
 */
const IDLE_AFTER_MS = 10;
const IDLE_FACTOR = 10;
export const AUTO_REPLAY_MAX_IDLE_MS = 2_000;
let idle: { until: number; enabled: string } | null = null;

/**
 * One pass of automatic replay: for each kind with `auto_replay_ready`, schedules a replay of
 * its ready open records (at most `limit` per call, each key's sequences in ascending order) as
 * the single-record `replay` action by `system:auto-replay`, whose reason names the person who
 * enabled it and when. A record someone acted on meanwhile (409) is skipped silently. Called by
 * the dispatcher every tick: with nothing enabled it is one small query. Returns how many replays
 * it scheduled.
 */
export async function autoReplayReady(options: { limit?: number } = {}): Promise<number> {
  const limit = options.limit ?? AUTO_REPLAY_BATCH;
  if (limit < 1) return 0;
  const switchedOn = await db().$queryRaw<{ kind: string; updatedAt: Date; authorityActor: string | null }[]>`
    SELECT kind, updated_at AS "updatedAt", authority_actor AS "authorityActor" FROM kind_settings
     WHERE auto_replay_ready AND paused_reason IS NULL ORDER BY kind`;
  const settings = await withoutLostAuthority(switchedOn);
  if (settings.length === 0) return 0;
  const enabled = settings.map((k) => `${k.kind}@${k.updatedAt.toISOString()}`).join("\n");
  if (idle && idle.enabled === enabled && Date.now() < idle.until) return 0;
  idle = null;
  const started = performance.now();
  const rows = await db().$queryRaw<ReadyRow[]>`
    WITH ${READY_PAIRS}
    SELECT r.id::text AS id, r.version, r.kind, k.updated_by AS "updatedBy", k.updated_at AS "updatedAt"
      FROM ${READY_RECORDS}
      JOIN kind_settings k ON k.kind = r.kind AND k.auto_replay_ready AND k.paused_reason IS NULL
     ORDER BY r.sequence_key, r.sequence, r.seq
     LIMIT ${limit}`;
  if (rows.length === 0) {
    const took = performance.now() - started;
    if (took >= IDLE_AFTER_MS) {
      idle = { until: Date.now() + Math.min(took * IDLE_FACTOR, AUTO_REPLAY_MAX_IDLE_MS), enabled };
    }
    return 0;
  }
  let scheduled = 0;
  for (const row of rows) {
    try {
      await performAction(
        row.id,
        {
          action: "replay",
          expectedVersion: row.version,
          reason:
            `predecessor applied; automatic replay of ready ${row.kind} records ` +
            `enabled by ${row.updatedBy} on ${row.updatedAt.toISOString()}`,
          checkDone: true,
        },
        AUTO_REPLAY_ACTOR,
      );
      scheduled += 1;
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      // Someone acted on the record meanwhile (a conflict) is expected; anything else is worth a
      // look, but it must not stop the other records.
      if (error.kind !== "conflict") {
        log.warn({ reviewId: row.id, kind: error.kind, code: error.code }, "auto-replay refused");
      }
    }
  }
  return scheduled;
}

/**
 * The switches whose authority still may replay records; the others are paused here, each in a
 * transaction of its own that checks again under the setting's row lock (someone may have turned
 * it on again meanwhile, on their own authority). A disable, role change or revoke pauses them at
 * once; this catches what happens silently, such as a token's expiry.
 */
async function withoutLostAuthority<T extends { kind: string; authorityActor: string | null }>(
  switchedOn: T[],
): Promise<T[]> {
  const kept: T[] = [];
  for (const setting of switchedOn) {
    if (!(await switchAuthorityLost(db(), setting.authorityActor, setting.kind))) {
      kept.push(setting);
      continue;
    }
    await db().$transaction(async (tx) => {
      const rows = await tx.$queryRaw<{ authorityActor: string | null }[]>`
        SELECT authority_actor AS "authorityActor" FROM kind_settings
         WHERE kind = ${setting.kind} AND auto_replay_ready AND paused_reason IS NULL FOR UPDATE`;
      if (!rows[0]) return;
      const because = await switchAuthorityLost(tx, rows[0].authorityActor, setting.kind);
      if (because) await appendDecision(tx, await pauseSwitch(tx, setting.kind, because));
    });
  }
  return kept;
}
