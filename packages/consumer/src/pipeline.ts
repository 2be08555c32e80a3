import pg from "pg";

// The worker's way into PostgreSQL. Every value travels as a bind parameter of the extended
// protocol, one statement per Parse, so no text a handler writes can reach into the statements
// the runtime sends around it (a trailing `--` or an open `/*` ends with its own statement). A
// step's statements (BEGIN, the lock and the reads; the handler's writes, the bookkeeping and
// COMMIT) go out in one write as one message group closed by a single Sync, and come back in one
// answer: one round trip per step, as the multi-statement text had before, and one flush of the
// server's answer instead of one per statement (docs/decisions/0009-worker-sql-path.md).

/** One statement; a `name` prepares it once per connection (the runtime's own hot statements). */
export interface Statement {
  text: string;
  values?: readonly unknown[];
  name?: string;
}

// The settings the path relies on, pinned at connection start whatever the server or the
// database default to: with bind parameters they no longer decide how a value is read, but a
// handler's own SQL text (its string literals) means what its author read.
const PINNED_SETTINGS = "-c client_encoding=UTF8 -c standard_conforming_strings=on";

const globalForPool = globalThis as unknown as { reviewConsoleConsumerPool?: pg.Pool };

/** SQLSTATE read_only_sql_transaction: what a standby answers to a write. */
export const READ_ONLY_SQLSTATE = "25006";

/**
 * A pool's `verify` for each new connection: one that reached a server in recovery (a standby) is
 * refused and closed. Behind a proxy that routes to the primary (HAProxy asking Patroni), a
 * connection opened in the second or two before the proxy notices a switchover or its own start
 * can land on a standby; kept in the pool, every write on it would fail until the proxy closed it.
 * Refused, the request fails like any other "database away" (SQLSTATE 25006: a 503 with
 * Retry-After in the console, a back-off in the worker) and the next connection is tried afresh.
 * One round trip per connection, none per query.
 */
export function verifyPrimary(client: pg.PoolClient, done: (err?: Error) => void): void {
  client.query("SELECT pg_is_in_recovery() AS standby").then(
    (result: pg.QueryResult<{ standby: boolean }>) => {
      if (!result.rows[0]?.standby) return done();
      done(
        Object.assign(new Error("connected to a standby (read-only): the primary is changing over"), {
          code: READ_ONLY_SQLSTATE,
        }),
      );
    },
    (error: Error) => done(error),
  );
}

/** The runtime's connections to DATABASE_URL, created on first use. */
export function consumerPool(): pg.Pool {
  if (!globalForPool.reviewConsoleConsumerPool) {
    const connectionString = process.env.DATABASE_URL;
    if (!connectionString) throw new Error("DATABASE_URL is not set");
    const pool = new pg.Pool({
      connectionString,
      max: Number(process.env.DB_POOL_SIZE ?? 10),
      options: PINNED_SETTINGS,
      verify: verifyPrimary,
    });
    // An idle connection that breaks (a server restart) is replaced by the pool; the error must
    // not end the process.
    pool.on("error", () => {});
    // So must one that breaks while a step holds it (the server shut down between its statements):
    // node-postgres emits that as an 'error' event on the checked-out client, which ended the
    // worker process. The step's next statement then fails, and the runtime backs off.
    pool.on("connect", (client) => client.on("error", () => {}));
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

/** A statement of a step failed; `index` says which (PostgreSQL skips the rest of the step). */
export class PipelineError extends Error {
  override readonly name = "PipelineError";
  constructor(
    readonly index: number,
    readonly original: unknown,
  ) {
    super(original instanceof Error ? original.message : String(original));
  }
}

/** node-postgres' query config of one statement on the extended protocol (`queryMode` is missing from @types/pg). */
export function queryConfig(statement: Statement): pg.QueryConfig {
  const { text, values, name } = statement;
  return { text, values, name, queryMode: "extended" } as pg.QueryConfig;
}

// node-postgres' internals this module builds on (pg is pinned; tests cover the behaviour).
interface WireConnection {
  parsedStatements: Record<string, string>;
  submittedNamedStatements: Record<string, string>;
  parse(config: { text: string; name: string; types: unknown[] }): void;
  bind(config: { portal: string; statement: string; values: unknown[]; valueMapper: (v: unknown) => unknown }): void;
  describe(config: { type: "P"; name: string }): void;
  execute(config: { portal: string; rows: number }): void;
  sync(): void;
}
const prepareValue = (pg as unknown as { utils: { prepareValue(value: unknown): unknown } }).utils.prepareValue;
const BaseQuery = pg.Query as unknown as new (config: object, values: undefined, callback: StepCallback) => object;
type StepCallback = (error: Error | undefined, result: pg.QueryResult | pg.QueryResult[]) => void;

/**
 * Several statements as one query for node-postgres: Parse (once per named statement), Bind,
 * Describe and Execute for each, then one Sync. The answers come back as one multi-result query
 * would (one result per statement, in order); after an error the server skips to the Sync, so
 * `completed` says which statement failed.
 */
class StepQuery extends BaseQuery {
  completed = 0;
  /** Named statements first parsed by this step, by position, and the connection that knows them. */
  private readonly parsedHere: { index: number; name: string }[] = [];
  private connection: WireConnection | null = null;

  constructor(
    private readonly statements: readonly Statement[],
    callback: StepCallback,
  ) {
    super({ text: "-- review-console step", queryMode: "extended" }, undefined, callback);
  }

  requiresPreparation(): boolean {
    return true;
  }

  prepare(connection: WireConnection): void {
    this.connection = connection;
    this.statements.forEach(({ text, name = "", values = [] }, index) => {
      if (!name || (connection.parsedStatements[name] ?? connection.submittedNamedStatements[name]) === undefined) {
        connection.parse({ text, name, types: [] });
        if (name) {
          connection.submittedNamedStatements[name] = text;
          this.parsedHere.push({ index, name });
        }
      }
      connection.bind({ portal: "", statement: name, values: [...values], valueMapper: prepareValue });
      connection.describe({ type: "P", name: "" });
      connection.execute({ portal: "", rows: 0 });
    });
    connection.sync();
  }

  /**
   * After a failure the server skipped every message up to the Sync, the Parse of a named
   * statement behind the failed one included: it must be parsed again when next used (a batch
   * goes on on its connection after one of its messages failed).
   */
  forgetSkippedParses(): void {
    for (const { index, name } of this.parsedHere) {
      if (index > this.completed && this.connection) delete this.connection.submittedNamedStatements[name];
    }
  }

  handleCommandComplete(message: unknown, connection: unknown): void {
    this.completed += 1;
    (BaseQuery.prototype as { handleCommandComplete(m: unknown, c: unknown): void }).handleCommandComplete.call(
      this,
      message,
      connection,
    );
  }
}

/**
 * Sends `statements` as one step (one write, one Sync, one answer) and returns one result per
 * statement. Within a transaction block a failure aborts the block and PostgreSQL skips the
 * step's remaining statements (a COMMIT among them included). Throws the first failure with its
 * position.
 */
export async function pipeline(client: pg.ClientBase, statements: readonly Statement[]): Promise<pg.QueryResult[]> {
  // Values are serialised before anything is written: a value node-postgres cannot serialise
  // must fail the step, not leave half of it on the wire.
  statements.forEach((s, index) => {
    try {
      s.values?.forEach((value) => prepareValue(value));
    } catch (error) {
      throw new PipelineError(index, error);
    }
  });
  let query: StepQuery | undefined;
  const answer = new Promise<pg.QueryResult | pg.QueryResult[]>((resolve, reject) => {
    query = new StepQuery(statements, (error, result) => (error ? reject(error) : resolve(result)));
  });
  client.query(query as unknown as pg.Submittable);
  try {
    const result = await answer;
    const results = Array.isArray(result) ? result : [result];
    if (results.length !== statements.length) {
      throw new Error(`a step of ${statements.length} statements answered ${results.length} results`);
    }
    return results;
  } catch (error) {
    if (error instanceof Error && error.message.startsWith("a step of")) throw error;
    query!.forgetSkippedParses();
    throw new PipelineError(query!.completed, error);
  }
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
  const results = await pipeline(client, [...statements, { name: "rc_commit", text: "COMMIT" }]);
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
    const results = await commitPipelined(client, [{ name: "rc_begin", text: "BEGIN" }, ...statements]);
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
  if (firstWords(text) === "") throw new Error("a handler's statement is empty");
  return { text, values };
}
