import type pg from "pg";
import { type Actor } from "@/lib/access";
import type { ReviewStatus } from "./schema";

// The intake statement (docs/decisions/0035-intake-cost.md). One statement per round of reports:
// upsert the records on the active-message index, add a history entry each, and append each to
// the decision log, all in the statement's one transaction. The log insert runs last in it, so
// the chain's lock is held only until the commit right after.
//
// Sent with node-postgres on the console's one pool (lib/db/client.ts), not through Prisma, as a
// named prepared statement: parsed and planned once per connection instead of once per round,
// and the reports travel as one JSON parameter (JSON.stringify is native; an array literal per
// column, escaped element by element, cost more than the rest of a batch's preparation). The
// text is constant, so every value is a bind parameter as ADR 0012 asks of every statement.

/** A report as the statement takes it: the JSON object of one `input` row. */
export interface IntakeRowInput {
  ord: number;
  category: string;
  reason: string;
  required_check: string;
  attempts: number;
  last_error?: string;
  /** The client's own class of `last_error`; absent: the database derives it (SQL `review_error_class`). */
  error_class?: string;
  /** The message's JSON text, cast to json by the statement (so stored byte for byte). */
  message: string;
  message_key: string;
  message_id: string | null;
  kind: string | null;
  effect_key: string | null;
  sequence_key: string | null;
  sequence: number | null;
  payload_schema: string | null;
  source?: unknown;
}

export interface IntakeRow {
  /** The report's position in its round: joined in SQL, so text the database normalises cannot mismatch. */
  ord: number;
  /** Null when the report was not written (`refused`). */
  id: string | null;
  status: ReviewStatus;
  attempts: number;
  created: boolean;
  /**
   * Why a scoped reporter's report was not written (docs/decisions/0038-keys-across-domains.md):
   * `message.id`, it would land on an active record of a domain it does not report into;
   * `message.effectKey` / `message.sequenceKey`, another domain's records or journal entry name that key.
   */
  refused: "message.id" | "message.effectKey" | "message.sequenceKey" | null;
  /** The domain of what it collided with (null: no domain, or not readable by the statement any more). */
  other_domain: string | null;
}

/** Bump the version when the text changes: a connection keeps a name's first text. */
export const INTAKE_STATEMENT_NAME = "review-console:intake-round:v4";

export const INTAKE_ROUND_SQL = `
WITH input AS (
  SELECT * FROM json_to_recordset($1::json) AS t(
    ord int, category "ReviewCategory", reason text, required_check text, attempts int, last_error text,
    error_class text, message text, message_key text, message_id text, kind text, effect_key text, sequence_key text,
    sequence bigint, payload_schema text, source jsonb)
), foreign_key AS (
  -- $4: the domains a scoped reporter reports into (NULL for a global reporter, for whom this is
  -- a one-time filter and reads nothing). A key that records, or the journal entry, of a kind
  -- outside them already name is another domain's effect or order: such a report is not written
  -- (ADR 0038). Distinct kinds first, the report's own kind left out (checked before it came);
  -- no kind is attributed to no one.
  -- (OFFSET 0 keeps the domain test from being pushed down to every row of a busy sequence key:
  -- domain_of_kind runs once per distinct kind.)
  SELECT i.ord, f.field, f.domain FROM input i CROSS JOIN LATERAL (
    SELECT d.field, d.domain FROM (
      SELECT k.field, public.domain_of_kind(k.kind) AS domain FROM (
        SELECT 'message.effectKey' AS field, o.kind FROM review_records o
         WHERE o.effect_key = i.effect_key AND o.kind IS NOT NULL AND o.kind IS DISTINCT FROM i.kind
        UNION
        SELECT 'message.sequenceKey', o.kind FROM review_records o
         WHERE o.sequence_key = i.sequence_key AND o.kind IS NOT NULL AND o.kind IS DISTINCT FROM i.kind
        UNION
        SELECT 'message.effectKey', j.kind FROM effect_journal j
         WHERE j.effect_key = i.effect_key AND j.kind IS NOT NULL AND j.kind IS DISTINCT FROM i.kind
        OFFSET 0
      ) k OFFSET 0
    ) d
    WHERE d.domain IS NULL OR NOT (d.domain = ANY($4::text[]))
    ORDER BY 1 LIMIT 1
  ) f
  WHERE $4::text[] IS NOT NULL
), up AS (
  INSERT INTO review_records AS r (category, reason, required_check, attempts, last_error, error_class,
      message, message_key, message_id, kind, effect_key, sequence_key, sequence, payload_schema, source)
  SELECT category, reason, required_check, attempts, last_error,
      COALESCE(error_class, public.review_error_class(last_error)), message::json,
      message_key, message_id, kind, effect_key, sequence_key, sequence, payload_schema, source
    FROM input WHERE NOT EXISTS (SELECT 1 FROM foreign_key f WHERE f.ord = input.ord) ORDER BY ord
  ON CONFLICT (message_key) WHERE status IN ('open', 'replay-scheduled', 'replaying')
  DO UPDATE SET
      -- Every report is at least one more failed attempt, even when the consumer's own
      -- counter restarted (a new worker, a redelivery after a crash).
      attempts = GREATEST(r.attempts + 1, EXCLUDED.attempts),
      report_count = r.report_count + 1,
      category = EXCLUDED.category,
      reason = EXCLUDED.reason,
      required_check = EXCLUDED.required_check,
      last_error = COALESCE(EXCLUDED.last_error, r.last_error),
      -- The class follows the report that brings a last error or a class; one with neither
      -- keeps both.
      error_class = CASE WHEN EXCLUDED.last_error IS NULL AND EXCLUDED.error_class IS NULL
                         THEN r.error_class ELSE EXCLUDED.error_class END,
      source = COALESCE(EXCLUDED.source, r.source),
      last_seen_at = now(),
      updated_at = now(),
      version = r.version + 1
    -- A scoped reporter joins only a record it could have reported (ADR 0038): of its domains'
    -- kinds, or of no kind. Read on the row the insert conflicted with, locked, newest version:
    -- no concurrent change slips between this check and the update. A row it may not join is
    -- left as it is and returns nothing.
    WHERE $4::text[] IS NULL OR r.kind IS NULL OR public.domain_of_kind(r.kind) = ANY($4::text[])
  RETURNING r.id, r.message_key, r.status::text AS status, r.attempts, r.effect_key, (r.xmax = 0) AS created
), history AS (
  INSERT INTO review_history (review_id, actor, action, to_status, reason, details)
  SELECT up.id, $2::text, CASE WHEN up.created THEN 'reported' ELSE 'reported-again' END,
         up.status::"ReviewStatus", i.reason,
         jsonb_build_object('category', i.category, 'attempts', up.attempts, 'reportedAttempts', i.attempts,
                            'lastError', i.last_error, 'source', i.source)
    FROM up JOIN input i USING (message_key)
), logged AS (
  INSERT INTO decision_log (actor, actor_role, action, review_id, effect_key, reason, details)
  SELECT $2::text, $3::text, CASE WHEN up.created THEN 'review.reported' ELSE 'review.reported-again' END,
         up.id, up.effect_key, i.reason,
         jsonb_build_object('category', i.category, 'attempts', up.attempts, 'messageId', i.message_id,
                            'kind', i.kind, 'source', i.source)
    FROM up JOIN input i USING (message_key) ORDER BY i.ord
)
SELECT i.ord, up.id::text AS id, up.status, up.attempts, up.created,
       CASE WHEN f.ord IS NOT NULL THEN f.field WHEN up.id IS NULL THEN 'message.id' END AS refused,
       CASE WHEN f.ord IS NOT NULL THEN f.domain
            WHEN up.id IS NULL THEN (SELECT public.domain_of_kind(o.kind) FROM review_records o
                                      WHERE o.message_key = i.message_key
                                        AND o.status IN ('open', 'replay-scheduled', 'replaying') LIMIT 1)
       END AS other_domain
  FROM input i LEFT JOIN up ON up.message_key = i.message_key LEFT JOIN foreign_key f ON f.ord = i.ord`;

/**
 * The statement for `rows` as `actor`, as node-postgres takes it. `domains`: the domains a
 * scoped reporter reports into, or null for a global one (lib/reviews/cross-domain.ts).
 */
export function intakeRoundQuery(
  rows: IntakeRowInput[],
  actor: Actor,
  domains: readonly string[] | null,
): pg.QueryConfig<unknown[]> {
  return {
    name: INTAKE_STATEMENT_NAME,
    text: INTAKE_ROUND_SQL,
    values: [JSON.stringify(rows), actor.label, actor.role, domains],
  };
}

/** Sends one round on `client` (the pool: its own transaction; a checked-out client: the caller's). */
export async function runIntakeRound(
  client: Pick<pg.Pool, "query"> | Pick<pg.PoolClient, "query">,
  rows: IntakeRowInput[],
  actor: Actor,
  domains: readonly string[] | null,
): Promise<IntakeRow[]> {
  const result = await client.query<IntakeRow>(intakeRoundQuery(rows, actor, domains));
  return result.rows;
}
