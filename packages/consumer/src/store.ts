import type pg from "pg";
import type { DecisionState, JournalState, Envelope } from "@review-console/contract";
import {
  commitPipelined,
  consumerPool,
  discard,
  queryConfig,
  handlerStatement,
  inTransaction,
  pipeline,
  PipelineError,
  type Statement,
} from "./pipeline.ts";
import type { ConsumerTx } from "./types.ts";

// The runtime's SQL. Every decision about a key runs in a transaction that holds the key's
// sequence_state row lock, so two workers, or a worker and the console, see one order of changes
// per sequenceKey. Each step is one round trip of parameterized statements (BEGIN and
// the lock and the reads; the bookkeeping, the handler's queued writes and COMMIT), and every
// commit is proven before anything is acknowledged (./pipeline.ts, docs/decisions/0009).

export { closeConsumerPool, consumerPool } from "./pipeline.ts";

const seconds = (ms: number) => ms / 1000;

export interface AttemptRow {
  failedAttempts: number;
  nextAttemptAt: Date | null;
  routedReason: string | null;
}

export interface KeyState {
  decision: DecisionState;
  attempts: AttemptRow | null;
  /** Until when the next sequence's effect is leased to a worker, when it is in flight. */
  nextLease: Date | null;
}

/**
 * A row of consumer_lock_key (prisma/migrations/20261130030000_consumer), its columns renamed
 * camelCase in the SELECT like every row this codebase reads (ADR 0012).
 */
export interface ReadRow {
  lastSequence: string;
  journalState: JournalState | null;
  journalLease: Date | null;
  nextLease: Date | null;
  failedAttempts: number | null;
  nextAttemptAt: Date | null;
  routedReason: string | null;
  now: Date;
  /** The transaction the lock was taken in: the commit must be this one's. */
  txid: string;
}

/** Raised when the journal changed under us (another writer's entry appeared): the decision is re-run. */
export class JournalConflict extends Error {
  override readonly name = "JournalConflict";
}

/** A write a local handler queued failed at commit: the handler's failure, everything rolled back. */
export class QueuedStatementError extends Error {
  override readonly name = "QueuedStatementError";
  constructor(readonly original: unknown) {
    super(original instanceof Error ? original.message : String(original));
  }
}

export const UNIQUE_VIOLATION = "23505";
// SQLSTATEs after which the whole transaction can simply run again.
export const TRANSIENT_STATES = new Set(["40001", "40P01"]);

/** The SQLSTATE of a failure, also of one reported by a pipeline. */
export function sqlState(error: unknown): string | null {
  const original = error instanceof PipelineError ? error.original : error;
  const code = (original as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : null;
}

export const LOCK_KEY = `SELECT o_last_sequence AS "lastSequence", o_journal_state AS "journalState",
       o_journal_lease AS "journalLease", o_next_lease AS "nextLease", o_failed_attempts AS "failedAttempts",
       o_next_attempt_at AS "nextAttemptAt", o_routed_reason AS "routedReason", o_now AS "now",
       pg_current_xact_id()::text AS txid
  FROM consumer_lock_key($1, $2, $3, $4)`;

/**
 * One message's transaction on one sequenceKey, open from `KeyTransaction.open` until a commit
 * or `rollback`. Holds the key's row lock the whole time.
 */
export class KeyTransaction {
  private done = false;
  private readonly queued: Statement[] = [];

  private constructor(
    private readonly client: pg.PoolClient,
    readonly state: KeyState,
    private readonly txid: string,
  ) {}

  /**
   * BEGIN, then consumer_lock_key: create the key's row at 0 when it is new (INSERT .. ON
   * CONFLICT DO NOTHING), lock it (SELECT .. FOR UPDATE), then read what `decide` needs: the
   * effectKey's journal entry, whether the next sequence is in flight under a live lease, and this
   * message's attempts. One round trip. The reads run after the lock in a statement of their own,
   * so they see what the previous holder of the lock committed. Times are the database's clock, so
   * workers on hosts with skewed clocks agree on leases.
   */
  static async open(envelope: Envelope, consumer: string, attemptKey: string): Promise<KeyTransaction> {
    const client = await consumerPool().connect();
    try {
      const [, read] = await pipeline(client, [
        { name: "rc_begin", text: "BEGIN" },
        {
          name: "rc_lock_key",
          text: LOCK_KEY,
          values: [envelope.sequenceKey, envelope.effectKey, consumer, attemptKey],
        },
      ]);
      const row = read?.rows[0] as ReadRow | undefined;
      if (!row) throw new Error(`sequence_state row of ${envelope.sequenceKey} vanished under its lock`);
      return new KeyTransaction(client, toState(row), row.txid);
    } catch (error) {
      await discard(client, error);
      throw error;
    }
  }

  /** The handle a local handler gets: its statements run in this transaction. */
  handle(): ConsumerTx {
    return {
      query: async <R extends Record<string, unknown>>(text: string, params?: unknown[]) => {
        return (await this.client.query<R>(queryConfig(handlerStatement(text, params)))).rows;
      },
      queue: (text: string, params?: unknown[]) => {
        // Checked now, so a bad parameter fails in the handler, not in the commit.
        this.queued.push(handlerStatement(text, params));
      },
    };
  }

  /**
   * Sends `statements` and COMMIT in one round trip, the commit proven (with `checkTxid`, also
   * that the last statement, which returns `txid`, ran in this transaction); returns the results.
   */
  private async commit(statements: readonly Statement[] = [], checkTxid = false): Promise<pg.QueryResult[]> {
    try {
      const results = await commitPipelined(this.client, statements, checkTxid ? this.txid : undefined);
      this.done = true;
      this.client.release();
      return results;
    } catch (error) {
      // Whatever failed, the connection is not handed back: it may still hold the key's lock.
      this.done = true;
      await discard(this.client, error);
      throw error;
    }
  }

  /** Commits the reads alone (the decision changed nothing). */
  commitRead(): Promise<pg.QueryResult[]> {
    return this.commit();
  }

  async rollback(cause?: unknown): Promise<void> {
    if (this.done) return;
    this.done = true;
    try {
      await this.client.query("ROLLBACK");
      this.client.release();
    } catch {
      // The connection is gone: destroy it rather than hand it back.
      this.client.release(cause instanceof Error ? cause : new Error("rollback failed"));
    }
  }

  /**
   * The handler's queued writes, the local effect's bookkeeping (consumer_apply_local), then
   * COMMIT, in one round trip: journal `applied`, sequence advanced, attempts forgotten. An entry
   * that appeared meanwhile aborts the whole transaction (the handler's change included) as a
   * JournalConflict: never committed unrecorded. The bookkeeping goes last, so the transaction id
   * it reads proves that no handler statement ended the transaction before it.
   */
  async commitLocalApplied(envelope: Envelope, consumer: string, attemptKey: string): Promise<void> {
    // No attempts row seen under the lock: nothing to forget (one recorded since by a worker on a
    // duplicate would outlive the message harmlessly: a redelivery is suppressed before it is read).
    const attempts = this.state.attempts === null ? null : attemptKey;
    const bookkeeping: Statement = {
      name: "rc_apply_local",
      text: `SELECT consumer_apply_local($1, $2, $3, $4, $5, $6, $7), pg_current_xact_id()::text AS txid`,
      values: [...journalValues(envelope), consumer, attempts],
    };
    const queued = this.queued.length;
    try {
      await this.commit([...this.queued, bookkeeping], true);
    } catch (error) {
      if (!(error instanceof PipelineError)) throw error;
      // The first failure decides: one of the handler's writes, or the bookkeeping itself.
      if (error.index < queued) throw new QueuedStatementError(error.original);
      if (error.index === queued && sqlState(error) === UNIQUE_VIOLATION) {
        throw new JournalConflict(`effect ${envelope.effectKey} is already in the journal`);
      }
      throw error.original;
    }
  }

  /** Journal `started` with a lease, then COMMIT. Throws JournalConflict when an entry exists. */
  async commitStarted(envelope: Envelope, leaseMs: number): Promise<void> {
    const [inserted] = await this.commit([
      {
        text: `INSERT INTO effect_journal (effect_key, state, message_id, kind, sequence_key, sequence, lease_expires_at)
               VALUES ($1, 'started', $2, $3, $4, $5, clock_timestamp() + make_interval(secs => $6::float8))
               ON CONFLICT (effect_key) DO NOTHING`,
        values: [...journalValues(envelope), seconds(leaseMs)],
      },
    ]).catch(unwrapPipeline);
    if (inserted?.rowCount !== 1) throw new JournalConflict(`effect ${envelope.effectKey} is already in the journal`);
  }

  /** A started effect past its lease: `unknown` (never re-executed automatically), then COMMIT. */
  async commitUnknown(effectKey: string): Promise<void> {
    await this.commit([markUnknownStatement(effectKey)]).catch(unwrapPipeline);
  }
}

/** The runtime's own statements failed: report the database's error, not the pipeline's wrapper. */
function unwrapPipeline(error: unknown): never {
  throw error instanceof PipelineError ? error.original : error;
}

export function toState(row: ReadRow): KeyState {
  const last = Number(row.lastSequence);
  const nextInFlight = row.nextLease !== null && row.nextLease.getTime() > row.now.getTime();
  return {
    nextLease: nextInFlight ? row.nextLease : null,
    decision: {
      lastSequence: last,
      journal: row.journalState === null ? null : { state: row.journalState, leaseExpiresAt: row.journalLease },
      inFlightSequences: nextInFlight ? [last + 1] : [],
      now: row.now,
    },
    attempts:
      row.failedAttempts === null
        ? null
        : {
            failedAttempts: row.failedAttempts,
            nextAttemptAt: row.nextAttemptAt,
            routedReason: row.routedReason,
          },
  };
}

/** $1..$5 of every journal write: the entry's key and where it came from. */
export function journalValues(envelope: Envelope): unknown[] {
  return [envelope.effectKey, envelope.id, envelope.kind, envelope.sequenceKey, envelope.sequence];
}

const markUnknownStatement = (effectKey: string): Statement => ({
  text: `UPDATE effect_journal SET state = 'unknown', lease_expires_at = NULL, updated_at = now()
          WHERE effect_key = $1 AND state = 'started'`,
  values: [effectKey],
});

/** Extends a `started` lease while its worker is alive and still waiting for the provider. */
export async function extendLease(effectKey: string, leaseMs: number): Promise<void> {
  await consumerPool().query(
    `UPDATE effect_journal SET lease_expires_at = clock_timestamp() + make_interval(secs => $2::float8)
      WHERE effect_key = $1 AND state = 'started'`,
    [effectKey, seconds(leaseMs)],
  );
}

/**
 * The provider answered: journal `applied` with its reference and the sequence advanced, under
 * the key's lock, in one round trip. Written whatever the entry's state meanwhile (another worker
 * may have routed an expired lease to `unknown`, an owner may have cleared it): the provider's
 * answer is the truth about the effect. The sequence never moves back.
 */
export async function recordExternalApplied(
  envelope: Envelope,
  providerRef: string,
  consumer: string,
  attemptKey: string,
): Promise<void> {
  await inTransaction([
    { text: `SELECT 1 FROM sequence_state WHERE sequence_key = $1 FOR UPDATE`, values: [envelope.sequenceKey] },
    {
      text: `WITH j AS (
               INSERT INTO effect_journal (effect_key, state, message_id, kind, sequence_key, sequence, provider_ref)
               VALUES ($1, 'applied', $2, $3, $4, $5, $6)
               ON CONFLICT (effect_key) DO UPDATE SET state = 'applied', provider_ref = EXCLUDED.provider_ref,
                      lease_expires_at = NULL, updated_at = now()
             ), s AS (
               UPDATE sequence_state SET last_sequence = $5, updated_at = now()
                WHERE sequence_key = $4 AND last_sequence < $5
             )
             DELETE FROM consumer_attempts WHERE consumer = $7 AND attempt_key = $8`,
      values: [...journalValues(envelope), providerRef, consumer, attemptKey],
    },
  ]).catch(unwrapPipeline);
}

/** The provider's answer was lost: `unknown`, never re-executed automatically. */
export async function markUnknown(effectKey: string): Promise<void> {
  const { text, values } = markUnknownStatement(effectKey);
  await consumerPool().query(text, values as unknown[]);
}

export interface FailedAttempt {
  consumer: string;
  attemptKey: string;
  messageId: string | null;
  effectKey: string | null;
  reason: string;
  error: string;
  /** When to try again; null when the message goes to review. */
  retryInMs: number | null;
  /** Set when the message goes to review under this reason. */
  routedReason: string | null;
  /** The provider certainly did not act: remove the `started` entry so a retry may start it again. */
  clearStarted: boolean;
}

/** Counts one more failed attempt, durably; returns the count including this one. */
export async function recordFailedAttempt(attempt: FailedAttempt): Promise<number> {
  const clear: Statement[] =
    attempt.clearStarted && attempt.effectKey !== null
      ? [
          {
            text: `DELETE FROM effect_journal WHERE effect_key = $1 AND state = 'started'`,
            values: [attempt.effectKey],
          },
        ]
      : [];
  const results = await inTransaction([
    ...clear,
    {
      text: `INSERT INTO consumer_attempts AS a (consumer, attempt_key, message_id, effect_key, failed_attempts,
                                                 last_reason, last_error, next_attempt_at, routed_reason)
             VALUES ($1, $2, $3, $4, 1, $5, $6,
                     clock_timestamp() + make_interval(secs => $7::float8), $8)
             ON CONFLICT (consumer, attempt_key) DO UPDATE SET
               failed_attempts = a.failed_attempts + 1, last_reason = EXCLUDED.last_reason,
               last_error = EXCLUDED.last_error, next_attempt_at = EXCLUDED.next_attempt_at,
               routed_reason = EXCLUDED.routed_reason, updated_at = now()
             RETURNING failed_attempts AS "failedAttempts"`,
      values: [
        attempt.consumer,
        attempt.attemptKey,
        attempt.messageId,
        attempt.effectKey,
        attempt.reason,
        // Errors come from anywhere: keep them storable (no NUL, no lone surrogate) and bounded.
        storableText(attempt.error.slice(0, 20_000)),
        // NULL seconds make NULL: no next attempt, the message goes to review.
        attempt.retryInMs === null ? null : seconds(attempt.retryInMs),
        attempt.routedReason,
      ],
    },
  ]).catch(unwrapPipeline);
  const row = results.at(-1)?.rows[0] as { failedAttempts: number } | undefined;
  if (!row) throw new Error("the attempt was not recorded");
  return row.failedAttempts;
}

/** Text PostgreSQL can store: NUL removed, lone surrogates replaced (for diagnostics only). */
function storableText(text: string): string {
  return text.replaceAll("\u0000", "").toWellFormed();
}
