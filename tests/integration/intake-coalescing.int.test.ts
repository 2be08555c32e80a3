import { describe, expect, it } from "vitest";
import { POST as report } from "@/app/api/v1/reviews/route";
import { verifyDecisionLog } from "@/lib/audit";
import { createApiToken, tokenLookups } from "@/lib/auth";
import { intakeCoalescer } from "@/lib/reviews";
import { call, tokenFor } from "../support/http";
import { setupTestDatabase, withClient } from "../support/database";

// Concurrent single-record POST /api/v1/reviews requests share intake statements
// (lib/reviews/intake-coalescer.ts, docs/decisions/0018-intake-coalescing.md). What must not
// change: each request gets its own record and answer, each record its history entry and its own
// hash-chained decision-log entry under the right actor, repeats of one message count as they do
// one by one; a revoked token is refused from the moment it is revoked (token lookups are joined
// too, lib/db/batched-lookup.ts, never cached). What must change: fewer transactions and token
// queries than requests. About 10 s.

const database = setupTestDatabase();

function reportOf(messageId: string, attempts = 1) {
  return {
    category: "manual-review",
    reason: "retry-limit",
    requiredCheck: "find out why it keeps failing",
    attempts,
    source: { transport: "redis-streams", queue: "invoices" },
    message: { id: messageId, kind: "invoice.reminder", payload: { n: messageId } },
  };
}

const unique = () => Math.random().toString(36).slice(2, 10);

describe("single-record intake under concurrency", () => {
  it("answers each of 60 concurrent requests with its own record, in fewer transactions than requests", async () => {
    const token = await tokenFor("consumer", `coalesce-${unique()}`);
    const run = unique();
    const ids = Array.from({ length: 60 }, (_, i) => `msg-coalesce-${run}-${i}`);
    const before = { ...intakeCoalescer().stats };
    const answers = await Promise.all(ids.map((id) => call(report, { token, body: reportOf(id) })));
    expect(answers.map((a) => a.status)).toEqual(ids.map(() => 201));

    const rows = await withClient(database.current.url, async (c) => {
      const { rows } = await c.query<{ id: string; message_id: string; log: number; history: number; txs: number }>(
        `SELECT r.id::text, r.message_id,
                (SELECT count(*) FROM decision_log l WHERE l.review_id = r.id AND l.action = 'review.reported')::int AS log,
                (SELECT count(*) FROM review_history h WHERE h.review_id = r.id AND h.action = 'reported')::int AS history,
                0 AS txs
           FROM review_records r WHERE r.message_id = ANY($1)`,
        [ids],
      );
      return rows;
    });
    // Every answer names the record of its own message, and each record has its own entries.
    const byMessage = new Map(rows.map((r) => [r.message_id, r]));
    ids.forEach((id, i) => {
      expect(byMessage.get(id)?.id).toBe(answers[i]!.body.id);
      expect(byMessage.get(id)?.log).toBe(1);
      expect(byMessage.get(id)?.history).toBe(1);
    });

    // The point: the 60 log entries were written by fewer transactions (xmin) than requests.
    const transactions = await withClient(database.current.url, async (c) => {
      const { rows } = await c.query<{ n: number; actors: string[] }>(
        `SELECT count(DISTINCT l.xmin::text)::int AS n, array_agg(DISTINCT l.actor) AS actors
           FROM decision_log l JOIN review_records r ON r.id = l.review_id WHERE r.message_id = ANY($1)`,
        [ids],
      );
      return rows[0]!;
    });
    expect(transactions.n).toBeLessThan(ids.length);
    expect(transactions.actors).toHaveLength(1);
    const after = intakeCoalescer().stats;
    expect(after.reports - before.reports).toBe(ids.length);
    expect(after.statements - before.statements).toBe(transactions.n);
    expect(await verifyDecisionLog(database.current.url)).toMatchObject({ ok: true });
  });

  it("keeps each actor's name on its own records when two tokens report at once", async () => {
    const a = `coalesce-a-${unique()}`;
    const b = `coalesce-b-${unique()}`;
    const tokens = { [a]: await tokenFor("consumer", a), [b]: await tokenFor("consumer", b) };
    const run = unique();
    const sent = Array.from({ length: 40 }, (_, i) => ({ name: i % 2 ? a : b, id: `msg-actors-${run}-${i}` }));
    const answers = await Promise.all(sent.map((s) => call(report, { token: tokens[s.name], body: reportOf(s.id) })));
    expect(answers.every((x) => x.status === 201)).toBe(true);
    const rows = await withClient(database.current.url, async (c) => {
      const { rows } = await c.query<{ message_id: string; log_actor: string; history_actor: string }>(
        `SELECT r.message_id, l.actor AS log_actor, h.actor AS history_actor
           FROM review_records r
           JOIN decision_log l ON l.review_id = r.id
           JOIN review_history h ON h.review_id = r.id
          WHERE r.message_id = ANY($1)`,
        [sent.map((s) => s.id)],
      );
      return rows;
    });
    expect(rows).toHaveLength(sent.length);
    for (const s of sent) {
      const row = rows.find((r) => r.message_id === s.id)!;
      expect(row.log_actor).toBe(`token:${s.name}`);
      expect(row.history_actor).toBe(`token:${s.name}`);
    }
  });

  it("counts concurrent reports of one message as one record reported again, as one by one", async () => {
    const token = await tokenFor("consumer", `coalesce-dup-${unique()}`);
    const id = `msg-dup-${unique()}`;
    // Fill the queue first, so the repeats of `id` wait and share one statement.
    const filler = Array.from({ length: 10 }, (_, i) =>
      call(report, { token, body: reportOf(`msg-filler-${id}-${i}`) }),
    );
    const repeats = Array.from({ length: 5 }, () => call(report, { token, body: reportOf(id, 1) }));
    const answers = await Promise.all(repeats);
    await Promise.all(filler);
    expect(answers.filter((x) => x.status === 201)).toHaveLength(1);
    expect(answers.filter((x) => x.status === 200)).toHaveLength(4);
    expect(new Set(answers.map((x) => x.body.id)).size).toBe(1);
    // attempts: each report is one more failed attempt (GREATEST(previous + 1, reported)).
    expect(answers.map((x) => x.body.attempts as number).sort()).toEqual([1, 2, 3, 4, 5]);
    const counts = await withClient(database.current.url, async (c) => {
      const { rows } = await c.query<{ report_count: number; reported: number; again: number }>(
        `SELECT r.report_count,
                (SELECT count(*) FROM decision_log l WHERE l.review_id = r.id AND l.action = 'review.reported')::int AS reported,
                (SELECT count(*) FROM decision_log l WHERE l.review_id = r.id AND l.action = 'review.reported-again')::int AS again
           FROM review_records r WHERE r.message_id = $1`,
        [id],
      );
      return rows;
    });
    expect(counts).toEqual([{ report_count: 5, reported: 1, again: 4 }]);
    expect(await verifyDecisionLog(database.current.url)).toMatchObject({ ok: true });
  });
});

describe("token lookups under concurrency", () => {
  it("joins concurrent requests' token lookups, and refuses a revoked token from the moment of revocation", async () => {
    const { id, token } = await createApiToken(`lookup-${unique()}`, "consumer", "system:test");
    const lookups = tokenLookups().stats;
    const before = { ...lookups };
    const run = unique();
    const burst = (from: number) =>
      Array.from({ length: 30 }, (_, i) => call(report, { token, body: reportOf(`msg-lookup-${run}-${from + i}`) }));
    const accepted = await Promise.all(burst(0));
    expect(accepted.every((a) => a.status === 201)).toBe(true);
    // Fewer queries than lookups: the point of joining them.
    expect(lookups.queries - before.queries).toBeLessThan(lookups.calls - before.calls);

    // Requests in flight while the token is revoked, then requests made after the revocation
    // committed: every one of the latter must be refused, however the lookups were joined.
    const inFlight = burst(100);
    await withClient(database.current.url, (c) =>
      c.query(`UPDATE api_tokens SET revoked_at = now(), revoked_by = 'system:test' WHERE id = $1`, [id]),
    );
    const after = await Promise.all(burst(200));
    expect(after.map((a) => a.status)).toEqual(after.map(() => 401));
    await Promise.all(inFlight);
  });
});
