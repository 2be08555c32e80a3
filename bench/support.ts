import { randomBytes } from "node:crypto";
import os from "node:os";
import pg from "pg";
import { type Actor } from "@/lib/access";
import { closeDb } from "@/lib/db/client";
import { type EmbeddedDatabase, startEmbeddedPostgres } from "@/lib/db/embedded";
import { migrate } from "@/lib/db/migrate";
import { intakeReports } from "@/lib/reviews";
import type { ReportInput } from "@/lib/reviews";
import { seedSyntheticRecords } from "@/testing/seed/synthetic";
import { withConnection } from "@/lib/db/connection";
import { assertSchemaMatchesMigrated } from "./schema-match";

// Shared by the benchmarks: where they run, and how their figures are summarised.

export const BENCH_DATA_DIR = ".data/pg-bench";

async function dropLeftovers(serverUrl: string, prefix: string): Promise<void> {
  await withConnection(serverUrl, async (c) => {
    const { rows } = await c.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE datname LIKE $1 || '\\_%'",
      [prefix],
    );
    for (const { datname } of rows) {
      console.log(`dropping ${datname}, left by an interrupted run`);
      await c.query(`DROP DATABASE ${pg.escapeIdentifier(datname)} WITH (FORCE)`);
    }
  });
}

/**
 * Runs `body` against a fresh, migrated database `<prefix>_<random>` on DATABASE_URL's server,
 * or on an embedded PostgreSQL when DATABASE_URL is unset. The app's client is pointed at it
 * (process.env.DATABASE_URL, read on first use). The database is dropped and the embedded server
 * stopped afterwards, also on Ctrl-C, so a run leaves nothing behind.
 */
export async function withBenchDatabase(prefix: string, body: (url: string) => Promise<void>): Promise<void> {
  let embedded: EmbeddedDatabase | undefined;
  let serverUrl: string;
  if (process.env.DATABASE_URL) {
    const url = new URL(process.env.DATABASE_URL);
    url.pathname = "/postgres";
    serverUrl = url.toString();
  } else {
    // Not `fast`: the figures should include real commit (fsync) costs, as in production.
    embedded = await startEmbeddedPostgres({ dataDir: BENCH_DATA_DIR, fast: false });
    serverUrl = embedded.serverUrl;
  }
  const name = `${prefix}_${randomBytes(4).toString("hex")}`;
  const databaseUrl = new URL(serverUrl);
  databaseUrl.pathname = `/${name}`;

  let cleaning: Promise<void> | undefined;
  const cleanup = () =>
    (cleaning ??= (async () => {
      await closeDb().catch(() => {});
      await withConnection(serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).catch((error) =>
        console.error(
          `could not drop ${name}: ${(error as Error).message}` + (embedded ? " (the next run drops it)" : ""),
        ),
      );
      await embedded?.stop().catch(() => {});
    })());
  const interrupted = (signal: NodeJS.Signals) => {
    console.error(`\n${signal}: dropping ${name}${embedded ? " and stopping the embedded server" : ""}`);
    void cleanup().finally(() => process.exit(130));
  };
  process.once("SIGINT", interrupted);
  process.once("SIGTERM", interrupted);

  try {
    // Ctrl-C in a terminal also reaches the embedded postgres (same process group), which then
    // shuts down before the bench can drop its database. The embedded server is this run's
    // alone, so what an interrupted run left behind is dropped here. Never on a shared server.
    if (embedded) await dropLeftovers(serverUrl, prefix);
    await withConnection(serverUrl, (c) => c.query(`CREATE DATABASE ${name}`));
    await migrate(databaseUrl.toString());
    process.env.DATABASE_URL = databaseUrl.toString();
    console.log(`database ${name} on ${embedded ? "embedded PostgreSQL (.data/pg-bench)" : "DATABASE_URL's server"}`);
    console.log(loadLine("before"));
    await body(databaseUrl.toString());
    console.log(loadLine("after"));
  } finally {
    await cleanup();
    process.off("SIGINT", interrupted);
    process.off("SIGTERM", interrupted);
  }
}

// Other work on the machine shows up in every figure; the load average says how much there was.
function loadLine(when: string): string {
  const [one, five] = os.loadavg();
  return `load average ${when}: ${one!.toFixed(2)} (1 min), ${five!.toFixed(2)} (5 min) on ${os.cpus().length} cores`;
}

export interface Summary {
  p50: number;
  p95: number;
  max: number;
}

/** Nearest-rank percentiles of latencies in milliseconds. */
export function summarize(samples: number[]): Summary {
  if (samples.length === 0) throw new Error("no samples");
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
  return { p50: rank(0.5), p95: rank(0.95), max: sorted[sorted.length - 1]! };
}

export const ms = (value: number) => value.toFixed(1);

/** A plain text table: first column left-aligned, the rest right-aligned. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

/** Runs `task` `total` times with at most `concurrency` in flight; returns each run's latency. */
export async function runConcurrently(
  total: number,
  concurrency: number,
  task: (index: number) => Promise<void>,
): Promise<number[]> {
  const latencies: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < total) {
      const index = next++;
      const started = performance.now();
      await task(index);
      latencies.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  return latencies;
}

/**
 * Seeds `count` synthetic records (testing/seed/synthetic.ts), telling how far it got every 250,000;
 * then the database must still have a migrated one's schema (./schema-match.ts), or it throws.
 */
export async function seedWithProgress(url: string, count: number): Promise<{ inserted: number; ms: number }> {
  console.log(`seeding ${count.toLocaleString("en")} synthetic records ...`);
  let reported = 0;
  const seeded = await seedSyntheticRecords(url, count, {
    onProgress: (done) => {
      if (done - reported < 250_000 && done !== count) return;
      reported = done;
      console.log(`  ${done.toLocaleString("en")} rows generated${done === count ? "; then indexes and ANALYZE" : ""}`);
    },
  });
  await assertSchemaMatchesMigrated(url);
  return seeded;
}

/**
 * 2,000 records through the real intake, in 40 statements of 50 (and their log entries through
 * the chain trigger): fresh delta rows in the counts tables, as live traffic leaves them between
 * compactions, so a benchmark reads what a busy console reads.
 */
export async function intakeLiveRecords(actor: Actor, reasons: readonly string[]): Promise<void> {
  for (let batch = 0; batch < 40; batch++) {
    await intakeReports(
      Array.from({ length: 50 }, (_, i) => ({
        input: {
          category: (["manual-review", "sequence-gap", "effect-result-unknown"] as const)[i % 3],
          reason: reasons[(batch + i) % reasons.length]!,
          requiredCheck: "look",
          attempts: 1,
          lastError: i % 2 ? "ETIMEDOUT after 30000 ms" : undefined,
          message: { id: `live-${batch}-${i}`, kind: "bench.live" },
        } as ReportInput,
      })),
      actor,
    );
  }
}

/**
 * A realistic report of an invoice reminder (sequence gaps and unknown effects in turn, keys that
 * name the business object), the one the intake benches send: `n` numbers it, `messageId` is its
 * message's id.
 */
export function invoiceReport(n: number, messageId: string): ReportInput {
  const sequenceKey = `invoice-${n}`;
  const sequence = 2 + (n % 5);
  return {
    category: n % 2 === 0 ? "sequence-gap" : "effect-result-unknown",
    reason: n % 2 === 0 ? "sequence-gap" : "effect-result-unknown",
    requiredCheck: `find message ${sequence - 1} of ${sequenceKey}`,
    attempts: 1 + (n % 3),
    ...(n % 2 === 0 ? {} : { lastError: "provider timeout after 30000 ms; the request was sent" }),
    source: { transport: "redis-streams", queue: "invoices", consumer: `worker-${n % 4}`, transportId: `${n}-0` },
    message: {
      id: messageId,
      kind: "invoice.reminder",
      effectKey: `${sequenceKey}:reminder-${sequence}`,
      sequenceKey,
      sequence,
      payload: { schema: "2021-03", invoiceId: String(n) },
    },
  };
}
