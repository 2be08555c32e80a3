import { AsyncLocalStorage } from "node:async_hooks";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { verifyPrimary } from "@review-console/consumer";
import { type Prisma, PrismaClient } from "@/lib/generated/prisma/client";
import { config, databaseUrl } from "@/lib/config";
import { log } from "@/lib/log";

// One client per process, created on first use: Next imports route modules during `next build`,
// when there is no database to connect to. Kept on globalThis, with the commit hooks' storage:
// Next may load this module twice, and both copies must see the same client and hooks.
const globalForDb = globalThis as unknown as {
  reviewConsoleDb?: PrismaClient;
  reviewConsolePool?: pg.Pool;
  reviewConsoleCommitHooks?: AsyncLocalStorage<(() => void)[]>;
};

/** The hooks of the interactive transaction the calling code runs in (see afterCommit). */
function commitHooks(): AsyncLocalStorage<(() => void)[]> {
  return (globalForDb.reviewConsoleCommitHooks ??= new AsyncLocalStorage());
}

/** The client inside a `$transaction(async (tx) => ...)`: what a write that joins a caller's transaction takes. */
export type Tx = Prisma.TransactionClient;

export function db(): PrismaClient {
  if (!globalForDb.reviewConsoleDb) {
    const connectionString = databaseUrl();
    if (!connectionString) throw new Error("DATABASE_URL is not set");
    // One pool for the process: Prisma's adapter runs on it, and so does the intake statement,
    // which intake sends with node-postgres itself (lib/reviews/intake-statement.ts).
    // A new connection that reached a standby (during a switchover) is refused, not pooled.
    const pool = new pg.Pool({ connectionString, max: config().DB_POOL_SIZE, verify: verifyPrimary });
    // An idle connection that fails (the server restarted) is dropped by the pool; unlistened,
    // the event would end the process.
    pool.on("error", (err) => log.warn({ err }, "an idle database connection failed"));
    const adapter = new PrismaPg(pool);
    globalForDb.reviewConsolePool = pool;
    globalForDb.reviewConsoleDb = withCommitHooks(new PrismaClient({ adapter }));
  }
  return globalForDb.reviewConsoleDb;
}

/** The pool db() runs on, for the statements sent with node-postgres directly (intake). */
export function dbPool(): pg.Pool {
  db();
  return globalForDb.reviewConsolePool!;
}

/**
 * Every interactive transaction (`db().$transaction(async (tx) => ...)`) runs its callback with a
 * list of hooks of its own, run once it has committed and dropped when it rolls back. Prisma has
 * no commit event; wrapping the one method every transaction of the console starts through is the
 * narrowest place to get one. The batch form (`$transaction([...])`) is left as it is.
 */
function withCommitHooks(client: PrismaClient): PrismaClient {
  const begin = client.$transaction.bind(client) as (arg: unknown, options?: unknown) => Promise<unknown>;
  const wrapped = async (arg: unknown, options?: unknown) => {
    if (typeof arg !== "function") return begin(arg, options);
    const hooks: (() => void)[] = [];
    const result = await begin((tx: unknown) => commitHooks().run(hooks, () => arg(tx)), options);
    runHooks(hooks);
    return result;
  };
  client.$transaction = wrapped as PrismaClient["$transaction"];
  return client;
}

/** The transaction has committed: a failing hook must not make its caller believe otherwise. */
function runHooks(hooks: (() => void)[]): void {
  for (const hook of hooks) {
    try {
      hook();
    } catch (err) {
      log.error({ err }, "a hook after a commit failed");
    }
  }
}

/**
 * Runs `hook` once what `client` wrote is committed: at once when `client` is the client itself
 * (each statement commits by itself), after the commit when it is an interactive transaction's
 * client (and never if that transaction rolls back). A transaction not started through db() has
 * no hooks: `hook` runs at once. A hook that throws is logged.
 */
export function afterCommit(client: unknown, hook: () => void): void {
  const hooks = client === globalForDb.reviewConsoleDb ? undefined : commitHooks().getStore();
  if (hooks) hooks.push(hook);
  else runHooks([hook]);
}

export async function closeDb(): Promise<void> {
  const client = globalForDb.reviewConsoleDb;
  const pool = globalForDb.reviewConsolePool;
  globalForDb.reviewConsoleDb = undefined;
  globalForDb.reviewConsolePool = undefined;
  await client?.$disconnect();
  // Not Prisma's to end (an external pool): it may have run queries Prisma never saw.
  await pool?.end();
}
