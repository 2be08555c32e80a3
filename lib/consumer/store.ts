import pg from "pg";
import type { DecisionState, JournalState } from "@/lib/contract/decide";
import type { Envelope } from "@/lib/contract/envelope";
import { inlineParameters } from "./sql-inline";
import type { ConsumerTx } from "./types";

// The runtime's SQL. Every decision about a key runs in a transaction that holds the key's
// sequence_state row lock, so two workers, or a worker and the console, see one order of changes
// per sequenceKey. It runs on a node-postgres pool of its own, and sends each step as one
// multi-statement query (BEGIN and the lock and the reads; the bookkeeping and COMMIT): a message
// costs three round trips to the database, not one per statement (docs/decisions/0007).

const globalForPool = globalThis as unknown as { reviewConsoleConsumerPool?: pg.Pool };

/** The runtime's connections to DATABASE_URL, created on first use. */
export function consumerPool(): pg.Pool {
  if (!globalForPool.reviewConsoleConsumerPool) {
    const connectionString = process.env.DATABASE_URL;
    if (!connectionString) throw new Error("DATABASE_URL is not set");
    const pool = new pg.Pool({ connectionString, max: Number(process.env.DB_POOL_SIZE ?? 10) });
    // An idle connection that breaks (a server restart) is replaced by the pool; the error must
    // not end the process.
    pool.on("error", () => {});
    globalForPool.reviewConsoleConsumerPool = pool;
  }
  return globalForPool.reviewConsoleConsumerPool;
}

export async function closeConsumerPool(): Promise<void> {
  const pool = globalForPool.reviewConsoleConsumerPool;
  globalForPool.reviewConsoleConsumerPool = undefined;
  await pool?.end();
}

/** A SQL literal. Strings are escaped by node-postgres' own quoting (E'' when they hold a backslash). */
function lit(value: string | number | null): string {
  if (value === null) return "NULL";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error(`not a finite number: ${value}`);
    return String(value);
  }
  return pg.escapeLiteral(value);
}

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

/** A row of consumer_lock_key (prisma/migrations/20261130030000_consumer). */
interface ReadRow {
  o_last_sequence: string;
  o_journal_state: JournalState | null;
  o_journal_lease: Date | null;
  o_next_lease: Date | null;
  o_failed_attempts: number | null;
  o_next_attempt_at: Date | null;
  o_routed_reason: string | null;
  o_now: Date;
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

const UNIQUE_VIOLATION = "23505";
// SQLSTATEs after which the whole transaction can simply run again.
export const TRANSIENT_STATES = new Set(["40001", "40P01"]);

export function sqlState(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : null;
}

/** Runs a multi-statement query; node-postgres answers with one result per statement. */
async function batch(client: pg.PoolClient | pg.Pool, text: string): Promise<pg.QueryResult[]> {
  const result = (await client.query(text)) as unknown as pg.QueryResult | pg.QueryResult[];
  return Array.isArray(result) ? result : [result];
}

/**
 * One message's transaction on one sequenceKey, open from `KeyTransaction.open` until `commit`
 * or `rollback`. Holds the key's row lock the whole time.
 */
export class KeyTransaction {
  private done = false;
  private readonly queued: string[] = [];

  private constructor(
    private readonly client: pg.PoolClient,
    readonly state: KeyState,
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
    const key = lit(envelope.sequenceKey);
    try {
      const results = await batch(
        client,
        `BEGIN; SELECT * FROM consumer_lock_key(${key}, ${lit(envelope.effectKey)}, ${lit(consumer)}, ${lit(attemptKey)})`,
      );
      const row = results[1]?.rows[0] as ReadRow | undefined;
      if (!row) throw new Error(`sequence_state row of ${envelope.sequenceKey} vanished under its lock`);
      return new KeyTransaction(client, toState(row));
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      client.release(sqlState(error) === null ? (error as Error) : undefined);
      throw error;
    }
  }

  /** The handle a local handler gets: its statements run in this transaction. */
  handle(): ConsumerTx {
    return {
      query: async <R extends Record<string, unknown>>(text: string, params?: unknown[]) =>
        (await this.client.query<R>(text, params)).rows,
      queue: (text: string, params?: unknown[]) => {
        // Inlined now, so a bad parameter fails in the handler, not in the commit.
        this.queued.push(inlineParameters(text, params));
      },
    };
  }

  /** Sends `statements` (may be empty) and COMMIT in one round trip; returns the statements' results. */
  async commit(statements = ""): Promise<pg.QueryResult[]> {
    try {
      const results = await batch(this.client, statements ? `${statements}; COMMIT` : "COMMIT");
      this.finish();
      return results;
    } catch (error) {
      await this.rollback(error);
      throw error;
    }
  }

  async rollback(cause?: unknown): Promise<void> {
    if (this.done) return;
    try {
      await this.client.query("ROLLBACK");
      this.finish();
    } catch {
      // The connection is gone: destroy it rather than hand it back.
      this.finish(cause instanceof Error ? cause : new Error("rollback failed"));
    }
  }

  private finish(broken?: Error): void {
    if (this.done) return;
    this.done = true;
    this.client.release(broken);
  }

  /**
   * The local effect's bookkeeping (consumer_apply_local), then COMMIT, in one round trip: journal
   * `applied`, sequence advanced, attempts forgotten. An entry that appeared meanwhile aborts the
   * whole transaction (the handler's change included) as a JournalConflict: never committed unrecorded.
   */
  async commitLocalApplied(envelope: Envelope, consumer: string, attemptKey: string): Promise<void> {
    const e = envelopeLiterals(envelope);
    // No attempts row seen under the lock: nothing to forget (one recorded since by a worker on a
    // duplicate would outlive the message harmlessly: a redelivery is suppressed before it is read).
    const attempts = this.state.attempts === null ? null : attemptKey;
    const statements = [
      `SELECT consumer_apply_local(${e.effectKey}, ${e.id}, ${e.kind}, ${e.sequenceKey}, ${e.sequence}, ` +
        `${lit(consumer)}, ${lit(attempts)})`,
      ...this.queued,
    ];
    try {
      await this.commit(statements.join(";\n"));
    } catch (error) {
      const state = sqlState(error);
      const where = String((error as { where?: unknown }).where ?? "");
      if (state === UNIQUE_VIOLATION && where.includes("consumer_apply_local")) {
        throw new JournalConflict(`effect ${envelope.effectKey} is already in the journal`);
      }
      // The bookkeeping ran first; a statement error after it is one of the handler's queued writes.
      if (state !== null && this.queued.length > 0 && !where.includes("consumer_apply_local")) {
        throw new QueuedStatementError(error);
      }
      throw error;
    }
  }

  /** Journal `started` with a lease, then COMMIT. Throws JournalConflict when an entry exists. */
  async commitStarted(envelope: Envelope, leaseMs: number): Promise<void> {
    const e = envelopeLiterals(envelope);
    const [inserted] = await this.commit(
      `INSERT INTO effect_journal (effect_key, state, message_id, kind, sequence_key, sequence, lease_expires_at)
       VALUES (${e.effectKey}, 'started', ${e.id}, ${e.kind}, ${e.sequenceKey}, ${e.sequence},
               clock_timestamp() + make_interval(secs => ${lit(seconds(leaseMs))}))
       ON CONFLICT (effect_key) DO NOTHING`,
    );
    if (inserted?.rowCount !== 1) throw new JournalConflict(`effect ${envelope.effectKey} is already in the journal`);
  }

  /** A started effect past its lease: `unknown` (never re-executed automatically), then COMMIT. */
  async commitUnknown(effectKey: string): Promise<void> {
    await this.commit(markUnknownSql(effectKey));
  }
}

function toState(row: ReadRow): KeyState {
  const last = Number(row.o_last_sequence);
  const nextInFlight = row.o_next_lease !== null && row.o_next_lease.getTime() > row.o_now.getTime();
  return {
    nextLease: nextInFlight ? row.o_next_lease : null,
    decision: {
      lastSequence: last,
      journal:
        row.o_journal_state === null ? null : { state: row.o_journal_state, leaseExpiresAt: row.o_journal_lease },
      inFlightSequences: nextInFlight ? [last + 1] : [],
      now: row.o_now,
    },
    attempts:
      row.o_failed_attempts === null
        ? null
        : {
            failedAttempts: row.o_failed_attempts,
            nextAttemptAt: row.o_next_attempt_at,
            routedReason: row.o_routed_reason,
          },
  };
}

function envelopeLiterals(envelope: Envelope) {
  return {
    effectKey: lit(envelope.effectKey),
    id: lit(envelope.id),
    kind: lit(envelope.kind),
    sequenceKey: lit(envelope.sequenceKey),
    sequence: lit(envelope.sequence),
  };
}

const markUnknownSql = (effectKey: string) =>
  `UPDATE effect_journal SET state = 'unknown', lease_expires_at = NULL, updated_at = now()
    WHERE effect_key = ${lit(effectKey)} AND state = 'started'`;

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
  const e = envelopeLiterals(envelope);
  await inTransaction(
    `SELECT 1 FROM sequence_state WHERE sequence_key = ${e.sequenceKey} FOR UPDATE;
     WITH j AS (
       INSERT INTO effect_journal (effect_key, state, message_id, kind, sequence_key, sequence, provider_ref)
       VALUES (${e.effectKey}, 'applied', ${e.id}, ${e.kind}, ${e.sequenceKey}, ${e.sequence}, ${lit(providerRef)})
       ON CONFLICT (effect_key) DO UPDATE SET state = 'applied', provider_ref = EXCLUDED.provider_ref,
              lease_expires_at = NULL, updated_at = now()
     ), s AS (
       UPDATE sequence_state SET last_sequence = ${e.sequence}, updated_at = now()
        WHERE sequence_key = ${e.sequenceKey} AND last_sequence < ${e.sequence}
     )
     DELETE FROM consumer_attempts WHERE consumer = ${lit(consumer)} AND attempt_key = ${lit(attemptKey)}`,
  );
}

/** The provider's answer was lost: `unknown`, never re-executed automatically. */
export async function markUnknown(effectKey: string): Promise<void> {
  await consumerPool().query(markUnknownSql(effectKey));
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
  const clear =
    attempt.clearStarted && attempt.effectKey !== null
      ? `DELETE FROM effect_journal WHERE effect_key = ${lit(attempt.effectKey)} AND state = 'started';`
      : "";
  const next =
    attempt.retryInMs === null
      ? "NULL"
      : `clock_timestamp() + make_interval(secs => ${lit(seconds(attempt.retryInMs))})`;
  const results = await inTransaction(
    `${clear}
     INSERT INTO consumer_attempts AS a (consumer, attempt_key, message_id, effect_key, failed_attempts,
                                         last_reason, last_error, next_attempt_at, routed_reason)
     VALUES (${lit(attempt.consumer)}, ${lit(attempt.attemptKey)}, ${lit(attempt.messageId)}, ${lit(attempt.effectKey)},
             1, ${lit(attempt.reason)}, ${lit(attempt.error.slice(0, 20_000))}, ${next}, ${lit(attempt.routedReason)})
     ON CONFLICT (consumer, attempt_key) DO UPDATE SET
       failed_attempts = a.failed_attempts + 1, last_reason = EXCLUDED.last_reason,
       last_error = EXCLUDED.last_error, next_attempt_at = EXCLUDED.next_attempt_at,
       routed_reason = EXCLUDED.routed_reason, updated_at = now()
     RETURNING failed_attempts`,
  );
  const row = results.find((r) => r.command === "INSERT")?.rows[0] as { failed_attempts: number } | undefined;
  if (!row) throw new Error("the attempt was not recorded");
  return row.failed_attempts;
}

/** BEGIN; statements; COMMIT in one round trip on a pooled connection. */
async function inTransaction(statements: string): Promise<pg.QueryResult[]> {
  const client = await consumerPool().connect();
  try {
    const results = await batch(client, `BEGIN; ${statements}; COMMIT`);
    client.release();
    return results;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    client.release(sqlState(error) === null ? (error as Error) : undefined);
    throw error;
  }
}
