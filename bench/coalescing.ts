import "dotenv/config";
import { POST as postOne } from "@/app/api/v1/reviews/route";
import { createApiToken, tokenRows, type TokenRow } from "@/lib/auth";
import { BatchedLookup } from "@/lib/db/batched-lookup";
import { intakeReports, IntakeCoalescer } from "@/lib/reviews";
import { ms, runConcurrently, summarize, table, withBenchDatabase } from "./support";

/*
 * What joining concurrent single-record requests saves (docs/decisions/0018-intake-coalescing.md),
 * A/B in one process and one run: the real POST /api/v1/reviews handler called in-process (token
 * lookup, zod, intake statement, JSON answer; no HTTP server, no Next), C clients at a time,
 * alternating
 *
 *   joined  the console's setting: intake statements and token lookups shared under load
 *   alone   the same coalescer and lookup with one report / one token per statement, any number
 *           at once: every request its own token query and its own intake statement, as before
 *
 * `CPU ms/request` is this process's user + system time per request: the handler's own cost.
 * Usage: tsx bench/coalescing.ts (C=32, N=1500 requests per round, 3 rounds: BENCH_CONCURRENCY,
 * BENCH_REQUESTS, BENCH_ROUNDS).
 */

const C = Number(process.env.BENCH_CONCURRENCY ?? 32);
const N = Number(process.env.BENCH_REQUESTS ?? 1500);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

// The route reaches both through these globals (lib/reviews/intake.ts, lib/auth/tokens.ts).
const shared = globalThis as unknown as {
  reviewConsoleIntakeCoalescer?: IntakeCoalescer;
  reviewConsoleTokenLookups?: BatchedLookup<string, TokenRow>;
};

const MODES = {
  joined: () => {
    shared.reviewConsoleIntakeCoalescer = new IntakeCoalescer(intakeReports);
    shared.reviewConsoleTokenLookups = new BatchedLookup(tokenRows);
  },
  alone: () => {
    shared.reviewConsoleIntakeCoalescer = new IntakeCoalescer(intakeReports, { maxReports: 1, concurrency: 1_000_000 });
    shared.reviewConsoleTokenLookups = new BatchedLookup(tokenRows, { maxKeys: 1, concurrency: 1_000_000 });
  },
};
type Mode = keyof typeof MODES;

let serial = 0;
function body(): string {
  const n = ++serial;
  return JSON.stringify({
    category: "manual-review",
    reason: "retry-limit",
    requiredCheck: `find out why invoice.reminder keeps failing for invoice-${n}`,
    attempts: 1,
    source: { transport: "redis-streams", queue: "invoices" },
    message: { id: `msg-ab-${n}`, kind: "invoice.reminder", sequenceKey: `invoice-${n}`, sequence: 1, payload: {} },
  });
}

await withBenchDatabase("rc_bench_coalescing", async () => {
  const token = (await createApiToken("bench-coalescing", "consumer")).token;
  const rows: string[][] = [];
  const totals: Record<Mode, { requests: number; seconds: number; cpuMs: number; latencies: number[] }> = {
    joined: { requests: 0, seconds: 0, cpuMs: 0, latencies: [] },
    alone: { requests: 0, seconds: 0, cpuMs: 0, latencies: [] },
  };
  for (let round = 0; round <= ROUNDS; round++) {
    for (const mode of Object.keys(MODES) as Mode[]) {
      MODES[mode]();
      const cpu = process.cpuUsage();
      const started = performance.now();
      const latencies = await runConcurrently(round === 0 ? 200 : N, C, async () => {
        const answer = await postOne(
          new Request("http://localhost/api/v1/reviews", {
            method: "POST",
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
            body: body(),
          }),
        );
        await answer.arrayBuffer();
        if (answer.status !== 201) throw new Error(`POST answered ${answer.status}`);
      });
      if (round === 0) continue; // warm-up
      const seconds = (performance.now() - started) / 1000;
      const used = process.cpuUsage(cpu);
      const t = totals[mode];
      t.requests += N;
      t.seconds += seconds;
      t.cpuMs += (used.user + used.system) / 1000;
      t.latencies.push(...latencies);
      const statements = shared.reviewConsoleIntakeCoalescer!.stats.statements;
      console.log(
        `round ${round} ${mode.padEnd(6)} ${(N / seconds).toFixed(0).padStart(5)} requests/s, ${statements} intake statements`,
      );
    }
  }
  for (const mode of Object.keys(MODES) as Mode[]) {
    const t = totals[mode];
    const s = summarize(t.latencies);
    rows.push([
      mode,
      (t.requests / t.seconds).toFixed(0),
      ms(s.p50),
      ms(s.p95),
      ms(s.max),
      (t.cpuMs / t.requests).toFixed(2),
    ]);
  }
  console.log(`\nPOST /api/v1/reviews in-process, C=${C}, ${ROUNDS} rounds of ${N} requests per mode\n`);
  console.log(table(["mode", "requests/s", "p50 ms", "p95 ms", "max ms", "CPU ms/request"], rows));
});
