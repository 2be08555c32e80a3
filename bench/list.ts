import "dotenv/config";
import pg from "pg";
import { GET } from "@/app/api/v1/reviews/route";
import { createApiToken } from "@/lib/auth";
import { reviewCursor } from "@/lib/domain/seq-cursor";
import { ms, seedWithProgress, summarize, type Summary, table, withBenchDatabase } from "./support";

/*
 * Latency of the review list (GET /api/v1/reviews) on a large table, measured in-process through
 * the real route handler: token lookup, zod parsing of the query, the SQL and the JSON answer are
 * all in the figure; only the HTTP server and the network are not. One client, one request at a
 * time, so the figures are latencies rather than throughput.
 */

const RECORDS = Number(process.env.BENCH_RECORDS ?? 1_000_000);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 200);
const WARMUP = 20;
const PAGE = 50;
// 200 pages of 50 = the page 10,000 records deep, reached the way a client reaches it.
const WALKED_PAGES = 200;
const P95_TARGET_MS = 50;
const DEPTH_RATIO_TARGET = 2;

let token = "";

interface Page {
  items: unknown[];
  nextCursor: string | null;
}

/** One request through the route handler; the answer's body is read in full, as a client would. */
async function request(query: string): Promise<{ ms: number; page: Page }> {
  const started = performance.now();
  const response = await GET(
    new Request(`http://localhost/api/v1/reviews?${query}`, { headers: { authorization: `Bearer ${token}` } }),
  );
  const text = await response.text();
  const elapsed = performance.now() - started;
  if (response.status !== 200) throw new Error(`GET ?${query} answered ${response.status}: ${text}`);
  return { ms: elapsed, page: JSON.parse(text) as Page };
}

async function measure(query: string): Promise<Summary & { items: number }> {
  let items = 0;
  for (let i = 0; i < WARMUP; i++) items = (await request(query)).page.items.length;
  const samples: number[] = [];
  for (let i = 0; i < ITERATIONS; i++) samples.push((await request(query)).ms);
  return { ...summarize(samples), items };
}

const withParams = (...parts: string[]) => parts.filter(Boolean).join("&");

/** Follows nextCursor `pages` times from the first page: the cursor of the page after them. */
async function walk(filter: string, pages: number): Promise<string> {
  let cursor: string | null = null;
  for (let i = 0; i < pages; i++) {
    const query = withParams(filter, `limit=${PAGE}`, cursor ? `cursor=${cursor}` : "");
    cursor = (await request(query)).page.nextCursor;
    if (!cursor) throw new Error(`?${filter} has fewer than ${pages} pages`);
  }
  return cursor!;
}

interface Case {
  label: string;
  filter: string;
  /** Also measure the page 10,000 deep and one at the far end of the list. */
  deep: boolean;
  /** A `sort=` order: its far end is not measured (the far cursor is one of the default order). */
  sorted?: boolean;
}

async function main() {
  await withBenchDatabase("rc_bench_list", async (url) => {
    const seeded = await seedWithProgress(url, RECORDS);
    console.log(
      `seeded ${seeded.inserted.toLocaleString("en")} records in ${(seeded.ms / 1000).toFixed(1)} s ` +
        `(index builds and ANALYZE included)`,
    );

    token = (await createApiToken("bench-list", "owner")).token;

    // Reference values from the data itself (testing/seed/synthetic.ts), so every search below
    // looks for something that exists: the record in the middle of the table (its id, message id
    // and sequence key), the first record from there on that has an effect key, a rare word (an
    // amountCents value of six digits: about 250 records carry it), and the oldest seq, so a
    // cursor near the end of the list can be built the way the API encodes it.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query<{
      id: string;
      message_id: string;
      sequence_key: string;
      effect_key: string;
      rare_word: string;
      min_seq: string;
    }>(
      `WITH mid AS (SELECT seq, id, message_id, sequence_key FROM review_records ORDER BY seq OFFSET $1 LIMIT 1)
       SELECT mid.id::text AS id, mid.message_id, mid.sequence_key,
              (SELECT effect_key FROM review_records
                WHERE seq >= mid.seq AND effect_key IS NOT NULL ORDER BY seq LIMIT 1) AS effect_key,
              (SELECT message->'payload'->>'amountCents' FROM review_records
                WHERE seq >= mid.seq AND kind = 'card.charge'
                  AND (message->'payload'->>'amountCents')::int >= 100000 ORDER BY seq LIMIT 1) AS rare_word,
              (SELECT min(seq) FROM review_records)::text AS min_seq
         FROM mid`,
      [Math.floor(RECORDS / 2)],
    );
    await client.end();
    const sample = rows[0]!;
    // Below this seq lie the oldest ~1% of records: a page at about 99% of the list's depth.
    const farCursor = reviewCursor.encode(BigInt(sample.min_seq) + BigInt(Math.ceil(RECORDS / 100)));

    const cases: Case[] = [
      { label: "no filter", filter: "", deep: true },
      { label: "status=open", filter: "status=open", deep: true },
      {
        label: "category=sequence-gap&reason=sequence-gap",
        filter: "category=sequence-gap&reason=sequence-gap",
        deep: true,
      },
      { label: "kind=card.charge&status=open", filter: "kind=card.charge&status=open", deep: true },
      { label: `sequenceKey=${sample.sequence_key}`, filter: `sequenceKey=${sample.sequence_key}`, deep: false },
      // q, one row per class of term. The whole ids and keys are exact terms (B-tree lookups);
      // the words are substring searches (docs/api.md).
      { label: "q=<record id> (record UUID)", filter: `q=${sample.id}`, deep: false },
      { label: `q=${sample.message_id} (message id)`, filter: `q=${sample.message_id}`, deep: false },
      {
        label: `q=${sample.effect_key} (effect key)`,
        filter: `q=${encodeURIComponent(sample.effect_key)}`,
        deep: false,
      },
      { label: `q=${sample.sequence_key} (sequence key)`, filter: `q=${sample.sequence_key}`, deep: false },
      { label: `q=${sample.rare_word} (rare word)`, filter: `q=${sample.rare_word}`, deep: false },
      // About a quarter of all messages (email.send) contain it; receipt about one in twelve.
      { label: "q=example.com (frequent word)", filter: "q=example.com", deep: true },
      { label: "q=receipt (frequent word)", filter: "q=receipt", deep: true },
      // The sorted orders (ADR 0027): a keyset on (column, id), with and without a status filter
      // (the console's default is status=open), and one filter that has no index of the order.
      // `~99%` reuses the default order's cursor, which a sorted list refuses, so they walk only.
      ...["-attempts", "attempts", "firstSeenAt", "-firstSeenAt", "-lastSeenAt"].flatMap((sort) => [
        { label: `sort=${sort}`, filter: `sort=${sort}`, deep: true, sorted: true },
        { label: `status=open&sort=${sort}`, filter: `status=open&sort=${sort}`, deep: true, sorted: true },
      ]),
      {
        label: "kind=card.charge&status=open&sort=-attempts",
        filter: "kind=card.charge&status=open&sort=-attempts",
        deep: true,
        sorted: true,
      },
    ];

    // The first requests of a process pay for module loading, the pool's connections and the
    // JIT; without this the first case measured would look slower than the deep pages.
    for (let i = 0; i < 100; i++) await request(`limit=${PAGE}`);

    const results: string[][] = [];
    const verdicts: string[] = [];
    let allHold = true;
    for (const c of cases) {
      console.log(`measuring ${c.label} ...`);
      const first = await measure(withParams(c.filter, `limit=${PAGE}`));
      const rowsOf = (depth: string, s: Summary & { items: number }) => [
        c.label,
        depth,
        ms(s.p50),
        ms(s.p95),
        ms(s.max),
        String(s.items),
      ];
      results.push(rowsOf("first", first));
      let worst = first;
      let deepest = first;
      if (c.deep) {
        const walked = await walk(c.filter, WALKED_PAGES);
        const deep = await measure(withParams(c.filter, `limit=${PAGE}`, `cursor=${walked}`));
        results.push(rowsOf(`${(WALKED_PAGES * PAGE).toLocaleString("en")}`, deep));
        if (c.sorted) {
          worst = [first, deep].reduce((a, b) => (b.p95 > a.p95 ? b : a));
          deepest = deep;
        } else {
          const far = await measure(withParams(c.filter, `limit=${PAGE}`, `cursor=${farCursor}`));
          results.push(rowsOf("~99%", far));
          worst = [first, deep, far].reduce((a, b) => (b.p95 > a.p95 ? b : a));
          deepest = far;
        }
      }
      const p95Holds = worst.p95 < P95_TARGET_MS;
      // The ratio uses p50: it is the typical cost of a page, where p95 of 200 samples on a shared
      // 2-core machine mostly measures what else ran at that moment.
      const ratio = deepest.p50 / first.p50;
      const ratioHolds = ratio <= DEPTH_RATIO_TARGET;
      allHold &&= p95Holds && ratioHolds;
      verdicts.push(
        `${c.label}: worst p95 ${ms(worst.p95)} ms ${p95Holds ? "<" : ">="} ${P95_TARGET_MS} ms ` +
          `${p95Holds ? "ok" : "MISSED"}` +
          (c.deep ? `; deepest/first p50 ${ratio.toFixed(2)}x ${ratioHolds ? "ok" : "MISSED"}` : ""),
      );
    }

    console.log(
      `\nGET /api/v1/reviews, ${RECORDS.toLocaleString("en")} records, limit ${PAGE}, ` +
        `${ITERATIONS} sequential requests per row after ${WARMUP} warm-up (ms)\n`,
    );
    console.log(table(["case", "depth", "p50", "p95", "max", "items"], results));
    console.log(
      `\ntargets: p95 < ${P95_TARGET_MS} ms at every depth; deepest page (~99%) p50 within ` +
        `${DEPTH_RATIO_TARGET}x of the first page's`,
    );
    for (const v of verdicts) console.log(`  ${v}`);
    console.log(allHold ? "all targets hold" : "SOME TARGETS MISSED");
    if (!allHold) process.exitCode = 1;
  });
}

await main();
