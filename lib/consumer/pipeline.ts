import pg from "pg";

// The worker's way into PostgreSQL: node-postgres in pipeline mode. Every value travels as a
// bind parameter of the extended protocol, one statement per Parse, so no text a handler writes
// can reach into the statements the runtime sends around it (a trailing `--` or an open `/*`
// ends with its own statement). Pipelining sends a step's statements (BEGIN, the lock and the
// reads; the bookkeeping, the handler's writes and COMMIT) in one round trip, as the
// multi-statement text did before (docs/decisions/0009-worker-sql-path.md).

/**
 * One statement. Statements with values (and every handler statement) go over the extended
 * protocol; the runtime's own constant texts (BEGIN, COMMIT) over the simple one, which costs
 * one message instead of four. A `name` prepares the statement once per connection.
 */
export interface Statement {
  text: string;
  values?: readonly unknown[];
  name?: string;
  /** Never the simple protocol, which would run several statements from one text. */
  extended?: true;
}

// The settings the path relies on, pinned at connection start whatever the server or the
// database default to: with bind parameters they no longer decide how a value is read, but a
// handler's own SQL text (its string literals) means what its author read.
const PINNED_SETTINGS = "-c client_encoding=UTF8 -c standard_conforming_strings=on";

const globalForPool = globalThis as unknown as { reviewConsoleConsumerPool?: pg.Pool };

/** The runtime's connections to DATABASE_URL, created on first use. */
export function consumerPool(): pg.Pool {
  if (!globalForPool.reviewConsoleConsumerPool) {
    const connectionString = process.env.DATABASE_URL;
    if (!connectionString) throw new Error("DATABASE_URL is not set");
    const pool = new pg.Pool({
      connectionString,
      max: Number(process.env.DB_POOL_SIZE ?? 10),
      pipeline: true,
      options: PINNED_SETTINGS,
    });
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

/** A commit that PostgreSQL did not confirm: nothing may be acknowledged on its strength. */
export class CommitNotConfirmed extends Error {
  override readonly name = "CommitNotConfirmed";
}

/** A statement of a pipeline failed; `index` says which (later ones only report the aborted transaction). */
export class PipelineError extends Error {
  override readonly name = "PipelineError";
  constructor(
    readonly index: number,
    readonly original: unknown,
  ) {
    super(original instanceof Error ? original.message : String(original));
  }
}

/** node-postgres' query config of a statement (`queryMode` is node-postgres'; @types/pg lacks it). */
export function queryConfig(statement: Statement): pg.QueryConfig {
  const { text, values, name, extended } = statement;
  return { text, values, name, queryMode: extended ? "extended" : undefined } as pg.QueryConfig;
}

/**
 * Sends `statements` back to back without waiting for answers, each with its own Sync, and
 * waits for all of them. Within a transaction block a failure aborts the block: the statements
 * after it fail too, and a COMMIT among them answers ROLLBACK. Throws the first failure.
 */
export async function pipeline(client: pg.ClientBase, statements: readonly Statement[]): Promise<pg.QueryResult[]> {
  // node-postgres writes each pipelined query as it is submitted (synchronously, inside query()):
  // corked, the step's statements leave in one write instead of one system call each.
  const socket = (client as unknown as { connection?: { stream?: { cork(): void; uncork(): void } } }).connection
    ?.stream;
  socket?.cork();
  let sent: Promise<pg.QueryResult>[];
  try {
    sent = statements.map((s) => client.query(queryConfig(s)));
  } finally {
    socket?.uncork();
  }
  const settled = await Promise.allSettled(sent);
  const failed = settled.findIndex((r) => r.status === "rejected");
  if (failed >= 0) throw new PipelineError(failed, (settled[failed] as PromiseRejectedResult).reason);
  return settled.map((r) => (r as PromiseFulfilledResult<pg.QueryResult>).value);
}

/**
 * Sends `statements` and COMMIT in one round trip, then proves the commit: COMMIT answered
 * `COMMIT` (an aborted block answers `ROLLBACK`) and the connection is idle again. With `txid`,
 * the last statement must return a `txid` column read with pg_current_xact_id(): it must be the
 * transaction the step began in (a statement that ended it early would have let the rest commit
 * on their own). Returns the statements' results.
 */
export async function commitPipelined(
  client: pg.PoolClient,
  statements: readonly Statement[],
  txid?: string,
): Promise<pg.QueryResult[]> {
  const results = await pipeline(client, [...statements, { text: "COMMIT" }]);
  const commit = results.at(-1)!;
  if (commit.command !== "COMMIT" || client.getTransactionStatus() !== "I") {
    throw new CommitNotConfirmed(
      `COMMIT answered ${commit.command} with the connection ${client.getTransactionStatus() ?? "in an unknown state"}`,
    );
  }
  if (txid !== undefined) {
    const seen = (results.at(-2)?.rows[0] as { txid?: string } | undefined)?.txid;
    if (seen !== txid) {
      throw new CommitNotConfirmed(`the writes ran outside the message's transaction ${txid} (in ${seen})`);
    }
  }
  return results.slice(0, statements.length);
}

/** BEGIN, statements, COMMIT in one round trip on a pooled connection; the commit proven. */
export async function inTransaction(statements: readonly Statement[]): Promise<pg.QueryResult[]> {
  const client = await consumerPool().connect();
  try {
    const results = await commitPipelined(client, [{ text: "BEGIN" }, ...statements]);
    client.release();
    return results.slice(1);
  } catch (error) {
    await discard(client, error);
    throw error;
  }
}

/**
 * Ends a connection whose transaction failed or was not proven committed: rolled back if it can
 * be, and never handed back to the pool (a later borrower must not inherit an open transaction).
 */
export async function discard(client: pg.PoolClient, cause: unknown): Promise<void> {
  if (client.getTransactionStatus() !== "I") await client.query("ROLLBACK").catch(() => {});
  client.release(cause instanceof Error ? cause : new Error(String(cause)));
}

// Statements that begin, end or split a transaction: the runtime's alone.
const TRANSACTION_CONTROL = /^(BEGIN|START|COMMIT|END|ROLLBACK|ABORT|SAVEPOINT|RELEASE|PREPARE\s+TRANSACTION)\b/i;

/** `text` without leading white space and comments, as the server's parser would skip them. */
export function firstWords(text: string): string {
  let rest = text;
  for (;;) {
    const trimmed = rest.trimStart();
    if (trimmed.startsWith("--")) {
      const newline = trimmed.indexOf("\n");
      rest = newline < 0 ? "" : trimmed.slice(newline + 1);
    } else if (trimmed.startsWith("/*")) {
      let depth = 0;
      let i = 0;
      do {
        if (trimmed.startsWith("/*", i)) {
          depth++;
          i += 2;
        } else if (trimmed.startsWith("*/", i)) {
          depth--;
          i += 2;
        } else i++;
      } while (depth > 0 && i < trimmed.length);
      rest = trimmed.slice(i);
    } else {
      return trimmed;
    }
  }
}

// With the u flag a surrogate pair is one code point, so only a lone surrogate matches.
const LONE_SURROGATE = /\p{Cs}/u;

/** Where a value cannot be stored as given, the path to it and why; null when it can. */
function unstorable(value: unknown, path: string, ancestors: Set<object>): string | null {
  if (typeof value === "string") {
    if (value.includes("\u0000")) return `${path} contains a NUL character, which PostgreSQL cannot store`;
    // A lone surrogate is not Unicode: encoded to UTF-8 it would silently become U+FFFD.
    if (LONE_SURROGATE.test(value)) return `${path} contains a lone surrogate (not valid Unicode)`;
    return null;
  }
  if (value === null || typeof value !== "object") return null;
  if (ArrayBuffer.isView(value) || value instanceof Date) return null;
  // The handler's own serialization (node-postgres calls it): its output is the handler's to check.
  if (typeof (value as { toPostgres?: unknown }).toPostgres === "function") return null;
  // Only a value inside itself is circular; the same object twice side by side is fine.
  if (ancestors.has(value)) return `${path} refers to itself`;
  ancestors.add(value);
  try {
    if (Array.isArray(value)) {
      for (const [i, item] of value.entries()) {
        const problem = unstorable(item, `${path}[${i}]`, ancestors);
        if (problem) return problem;
      }
      return null;
    }
    for (const [key, item] of Object.entries(value)) {
      const problem =
        unstorable(key, `${path} key ${JSON.stringify(key)}`, ancestors) ??
        unstorable(item, `${path}.${key}`, ancestors);
      if (problem) return problem;
    }
    return null;
  } finally {
    ancestors.delete(value);
  }
}

/**
 * A handler's statement, checked before it is sent: parameters PostgreSQL would store other
 * than given are refused with the parameter's position, and so is transaction control, which
 * belongs to the runtime.
 */
export function handlerStatement(text: string, values: readonly unknown[] = []): Statement {
  if (TRANSACTION_CONTROL.test(firstWords(text))) {
    throw new Error(`a handler's statement may not control the transaction: ${text.slice(0, 60)}`);
  }
  values.forEach((value, i) => {
    const problem = unstorable(value, `parameter $${i + 1}`, new Set());
    if (problem) throw new Error(problem);
  });
  return { text, values, extended: true };
}
