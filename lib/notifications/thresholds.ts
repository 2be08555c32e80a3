import { db } from "@/lib/db/client";
import type { NotificationEvent } from "./events";
import { enqueue } from "./outbox";

// `open.above` and `oldest-open.above`: read from the counts the triggers keep (a few rows per
// cause, whatever the size of the queue) and one index probe per open cause, never a scan of the
// records. Each endpoint has its own thresholds over its own domain (none: every record). A
// crossing fires once; the endpoint is armed again only once the value went back to or below it.

/** Any constant: one notifier checks at a time, the others skip the round. */
const THRESHOLD_LOCK_KEY = 3_220_032;

const OPEN_STATUSES = ["open", "replay-scheduled", "replaying"];

interface CauseRow {
  domain: string | null;
  open: number;
  oldest: Date | null;
}

export interface Levels {
  open: number;
  /** Seconds since the oldest open record was first seen; 0 when none is open. */
  oldestOpenSeconds: number;
}

/** Levels per domain (key null: records of no domain) and of everything (`all`). */
export async function readLevels(): Promise<{ byDomain: Map<string | null, Levels>; all: Levels; now: Date }> {
  const rows = await db().$queryRaw<(CauseRow & { now: Date })[]>`
    WITH causes AS (
      SELECT status, category, kind, reason, error_class, sum(n)::float8 AS n
        FROM review_group_counts WHERE status = ANY(${OPEN_STATUSES}::"ReviewStatus"[])
       GROUP BY 1, 2, 3, 4, 5 HAVING sum(n) > 0
    )
    SELECT domain_of_kind(c.kind) AS domain, c.n AS open, now() AS now,
           -- The oldest open record of the cause: the first entry of review_records_group_first_seen.
           CASE WHEN c.status = 'open' THEN (
             SELECT r.first_seen_at FROM review_records r
              WHERE r.status = 'open' AND r.category = c.category AND COALESCE(r.kind, '(none)') = COALESCE(c.kind, '(none)')
                AND r.reason = c.reason AND COALESCE(r.error_class, '(none)') = COALESCE(c.error_class, '(none)')
              ORDER BY r.first_seen_at LIMIT 1) END AS oldest
      FROM causes c`;
  const now = rows[0]?.now ?? new Date();
  const byDomain = new Map<string | null, { open: number; oldest: number | null }>();
  const all = { open: 0, oldest: null as number | null };
  for (const row of rows) {
    const level = byDomain.get(row.domain) ?? { open: 0, oldest: null };
    const oldest = row.oldest?.getTime() ?? null;
    for (const l of [level, all]) {
      l.open += row.open;
      if (oldest !== null && (l.oldest === null || oldest < l.oldest)) l.oldest = oldest;
    }
    byDomain.set(row.domain, level);
  }
  const levels = (l: { open: number; oldest: number | null }): Levels => ({
    open: l.open,
    oldestOpenSeconds: l.oldest === null ? 0 : Math.max(0, Math.floor((now.getTime() - l.oldest) / 1000)),
  });
  return { byDomain: new Map([...byDomain].map(([d, l]) => [d, levels(l)])), all: levels(all), now };
}

interface EndpointThresholds {
  id: string;
  domain: string | null;
  events: string[];
  openAbove: number | null;
  oldestOpenAboveSeconds: number | null;
}

interface StateRow {
  endpointId: string;
  metric: "open" | "oldest-open";
  above: boolean;
  crossings: number;
}

export interface ThresholdStep {
  ran: boolean;
  fired: number;
}

/** One round of threshold checks; the events it fires are queued in the same transaction. */
export async function checkThresholds(): Promise<ThresholdStep> {
  return db().$transaction(
    async (tx) => {
      const [lock] = await tx.$queryRaw<{ locked: boolean }[]>`
        SELECT pg_try_advisory_xact_lock(${THRESHOLD_LOCK_KEY}) AS locked`;
      if (!lock?.locked) return { ran: false, fired: 0 };
      const endpoints = await tx.$queryRaw<EndpointThresholds[]>`
        SELECT id::text AS id, domain, events, open_above AS "openAbove",
               oldest_open_above_seconds AS "oldestOpenAboveSeconds"
          FROM webhook_endpoints
         WHERE disabled_at IS NULL AND (open_above IS NOT NULL OR oldest_open_above_seconds IS NOT NULL)`;
      if (endpoints.length === 0) return { ran: true, fired: 0 };
      const { byDomain, all, now } = await readLevels();
      const states = await tx.$queryRaw<StateRow[]>`
        SELECT endpoint_id::text AS "endpointId", metric, above, crossings FROM webhook_threshold_states
         WHERE endpoint_id = ANY(${endpoints.map((e) => e.id)}::uuid[])`;
      const stateOf = (endpointId: string, metric: string) =>
        states.find((s) => s.endpointId === endpointId && s.metric === metric);

      let fired = 0;
      for (const endpoint of endpoints) {
        const level =
          endpoint.domain === null ? all : (byDomain.get(endpoint.domain) ?? { open: 0, oldestOpenSeconds: 0 });
        const checks = [
          { metric: "open" as const, type: "open.above" as const, threshold: endpoint.openAbove, value: level.open },
          {
            metric: "oldest-open" as const,
            type: "oldest-open.above" as const,
            threshold: endpoint.oldestOpenAboveSeconds,
            value: level.oldestOpenSeconds,
          },
        ];
        for (const check of checks) {
          if (check.threshold === null || !endpoint.events.includes(check.type)) continue;
          const above = check.value > check.threshold;
          const state = stateOf(endpoint.id, check.metric);
          if ((state?.above ?? false) === above) continue;
          const crossings = (state?.crossings ?? 0) + (above ? 1 : 0);
          await tx.$executeRaw`
            INSERT INTO webhook_threshold_states (endpoint_id, metric, above, crossings, changed_at)
            VALUES (${endpoint.id}::uuid, ${check.metric}, ${above}, ${crossings}, now())
            ON CONFLICT (endpoint_id, metric) DO UPDATE SET above = EXCLUDED.above, crossings = EXCLUDED.crossings,
                                                           changed_at = now()`;
          if (!above) continue;
          const event: NotificationEvent = {
            key: `threshold:${check.metric}:${crossings}`,
            type: check.type,
            domains: endpoint.domain ? [endpoint.domain] : [],
            occurredAt: now,
            data: { domain: endpoint.domain, value: check.value, threshold: check.threshold, crossing: crossings },
          };
          fired += await enqueue(tx, [event], [endpoint]);
        }
      }
      return { ran: true, fired };
    },
    { timeout: 30_000 },
  );
}
