import type pg from "pg";
import type { Envelope } from "@review-console/contract";
import {
  commitPipelined,
  consumerPool,
  discard,
  handlerStatement,
  pipeline,
  PipelineError,
  type Statement,
} from "./pipeline.ts";
import { journalValues, type KeyState, LOCK_KEY, type ReadRow, sqlState, toState, UNIQUE_VIOLATION } from "./store.ts";
import type { ConsumerTx } from "./types.ts";

// Several messages of different sequenceKeys in one transaction (docs/decisions/0021): every
// key locked in one round trip, each message's writes between a SAVEPOINT and its RELEASE, and
// one COMMIT for all of them. A write that fails rolls back to its message's savepoint only: the
// messages before it stay, the ones after it run again, and the COMMIT goes out once every
// remaining write went through. Like KeyTransaction, statements go out in as few round trips as
// the handlers allow (queued writes travel with the COMMIT) and the commit is proven.

/** One message of a batch: what its key's lock and bookkeeping need. */
export interface BatchMember {
  envelope: Envelope;
  attemptKey: string;
}

/** A message whose write failed; rolled back to its savepoint, the batch goes on without it. */
export interface MemberFailure {
  member: number;
  error: unknown;
  /** Its journal entry appeared meanwhile (unique violation of the bookkeeping): decide it again, alone. */
  conflict: boolean;
}

/** The batch as a whole failed (its connection, the runtime's own statements, the COMMIT): nothing of it committed. */
export class BatchFailed extends Error {
  override readonly name = "BatchFailed";
  constructor(readonly original: unknown) {
    super(original instanceof Error ? original.message : String(original));
  }
}

/**
 * Thrown to a handler's `query` when another message's earlier write broke the transaction: that
 * message is rolled back and this handler runs again (the handler may let it pass through).
 */
export class BatchInterrupted extends Error {
  override readonly name = "BatchInterrupted";
}

interface Tagged {
  statement: Statement;
  /** The member whose statement this is; null for the runtime's own (a failure of those fails the batch). */
  member: number | null;
  bookkeeping?: boolean;
}

const savepoint = (member: number) => `rc_m${member}`;

const TXID: Statement = { name: "rc_batch_txid", text: "SELECT pg_current_xact_id()::text AS txid" };

export class BatchTransaction {
  /** Statements not sent yet, in member order. */
  private pending: Tagged[] = [];
  /** Members with a statement on the server (their savepoint exists until released or rolled back). */
  private readonly sent = new Set<number>();
  private brokenBy: MemberFailure | null = null;
  /** Set when the batch cannot go on; the runtime then rolls it back and runs each message alone. */
  fatal: BatchFailed | null = null;
  private done = false;

  private constructor(
    private readonly client: pg.PoolClient,
    private readonly members: readonly BatchMember[],
    /** Each member's key state read under its lock, by member index. */
    readonly states: KeyState[],
    private readonly txid: string,
  ) {}

  /**
   * BEGIN and consumer_lock_key for every member, in one round trip. The keys are locked in one
   * order (sorted by sequenceKey) by every batch of every worker, so two batches never wait on
   * each other in a circle. The caller never puts two members of one key in a batch.
   */
  static async open(members: readonly BatchMember[], consumer: string): Promise<BatchTransaction> {
    const order = members.map((_, i) => i);
    order.sort((a, b) => {
      const x = members[a]!.envelope.sequenceKey;
      const y = members[b]!.envelope.sequenceKey;
      return x < y ? -1 : x > y ? 1 : 0;
    });
    const client = await consumerPool()
      .connect()
      .catch((error: unknown) => {
        throw new BatchFailed(error);
      });
    try {
      const results = await pipeline(client, [
        { name: "rc_begin", text: "BEGIN" },
        ...order.map((m) => ({
          name: "rc_lock_key",
          text: LOCK_KEY,
          values: [members[m]!.envelope.sequenceKey, members[m]!.envelope.effectKey, consumer, members[m]!.attemptKey],
        })),
      ]);
      const states: KeyState[] = new Array<KeyState>(members.length);
      let txid = "";
      order.forEach((m, at) => {
        const row = results[at + 1]?.rows[0] as ReadRow | undefined;
        if (!row) throw new Error(`sequence_state row of ${members[m]!.envelope.sequenceKey} vanished under its lock`);
        states[m] = toState(row);
        txid = row.txid;
      });
      return new BatchTransaction(client, members, states, txid);
    } catch (error) {
      await discard(client, error);
      throw new BatchFailed(error);
    }
  }

  /** The failure that broke the transaction since the last `recover`, if any. */
  get broken(): MemberFailure | null {
    return this.brokenBy;
  }

  /** Member `member`'s handle: its statements follow its SAVEPOINT. */
  begin(member: number): ConsumerTx {
    this.pending.push({ statement: { text: `SAVEPOINT ${savepoint(member)}` }, member });
    return {
      query: async <R extends Record<string, unknown>>(text: string, params?: unknown[]) => {
        // Checked first: a bad statement is the handler's error, before anything is sent.
        const statement = handlerStatement(text, params);
        if (this.fatal) throw this.fatal;
        if (this.brokenBy) throw this.interruption(member);
        this.pending.push({ statement, member });
        const results = await this.flush(member);
        return results.at(-1)!.rows as R[];
      },
      queue: (text: string, params?: unknown[]) => {
        this.pending.push({ statement: handlerStatement(text, params), member });
      },
    };
  }

  /** The member's handler returned: its bookkeeping (journal `applied`, sequence advanced) and RELEASE follow its writes. */
  finish(member: number, consumer: string, forgetAttempts: boolean): void {
    const { envelope, attemptKey } = this.memberOf(member);
    this.pending.push(
      {
        statement: {
          name: "rc_apply_local_batched",
          text: `SELECT consumer_apply_local($1, $2, $3, $4, $5, $6, $7)`,
          values: [...journalValues(envelope), consumer, forgetAttempts ? attemptKey : null],
        },
        member,
        bookkeeping: true,
      },
      { statement: { text: `RELEASE SAVEPOINT ${savepoint(member)}` }, member },
    );
  }

  /** The member's handler threw: what it queued is dropped, what it ran is rolled back. */
  abandon(member: number): void {
    this.pending = this.pending.filter((t) => t.member !== member);
    if (this.sent.has(member)) {
      this.sent.delete(member);
      this.pending.push(...undo(member));
    }
  }

  /**
   * After a failure: back to the failed member's savepoint (its writes, and any later member's,
   * are gone; the earlier members' stay), the statements not yet sent dropped. Returns the failure;
   * the caller runs the members after it again.
   */
  recover(): MemberFailure {
    const failure = this.brokenBy!;
    this.brokenBy = null;
    this.pending = undo(failure.member);
    for (const m of [...this.sent]) if (m >= failure.member) this.sent.delete(m);
    return failure;
  }

  /**
   * The pending writes, the proof of the transaction id and COMMIT, in one round trip. Returns
   * null once committed, or the member whose write failed (rolled back to its savepoint, nothing
   * committed yet: the caller runs the members after it again and commits again). Throws
   * BatchFailed when the batch as a whole cannot commit.
   */
  async commit(): Promise<MemberFailure | null> {
    const sending = [...this.pending, { statement: TXID, member: null }];
    this.pending = [];
    try {
      await commitPipelined(
        this.client,
        sending.map((t) => t.statement),
        this.txid,
      );
    } catch (error) {
      this.attribute(sending, error);
      return this.recover();
    }
    this.done = true;
    this.client.release();
    return null;
  }

  /** Ends a batch that failed as a whole: rolled back, its connection never reused. */
  async rollback(cause: unknown): Promise<void> {
    if (this.done) return;
    this.done = true;
    await discard(this.client, cause);
  }

  private memberOf(member: number): BatchMember {
    const found = this.members[member];
    if (!found) throw new Error(`no member ${member} in this batch`);
    return found;
  }

  /** Sends the pending statements now (a handler's `query`); the caller gets the results. */
  private async flush(member: number): Promise<pg.QueryResult[]> {
    const sending = this.pending;
    this.pending = [];
    try {
      const results = await pipeline(
        this.client,
        sending.map((t) => t.statement),
      );
      for (const t of sending) if (t.member !== null) this.sent.add(t.member);
      return results;
    } catch (error) {
      const failure = this.attribute(sending, error);
      throw failure.member === member ? failure.error : this.interruption(member);
    }
  }

  /**
   * Which member a failed step's error belongs to (PostgreSQL skipped everything after it); a
   * failure of the runtime's own statements, of the COMMIT or of the connection is the batch's.
   */
  private attribute(sending: readonly Tagged[], error: unknown): MemberFailure {
    const at = error instanceof PipelineError ? sending[error.index] : undefined;
    if (!at || at.member === null) {
      this.fatal = new BatchFailed(error instanceof PipelineError ? error.original : error);
      throw this.fatal;
    }
    for (const t of sending.slice(0, (error as PipelineError).index)) if (t.member !== null) this.sent.add(t.member);
    const original = (error as PipelineError).original;
    this.brokenBy = {
      member: at.member,
      error: original,
      conflict: at.bookkeeping === true && sqlState(original) === UNIQUE_VIOLATION,
    };
    return this.brokenBy;
  }

  private interruption(member: number): Error {
    if (this.brokenBy?.member === member) return this.brokenBy.error as Error;
    return new BatchInterrupted(`message ${this.brokenBy?.member} of the batch failed; this one runs again`);
  }
}

/** Back to a member's savepoint, which is then let go. */
function undo(member: number): Tagged[] {
  return [
    { statement: { text: `ROLLBACK TO SAVEPOINT ${savepoint(member)}` }, member: null },
    { statement: { text: `RELEASE SAVEPOINT ${savepoint(member)}` }, member: null },
  ];
}
