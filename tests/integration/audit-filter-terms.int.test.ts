import { beforeAll, describe, expect, it } from "vitest";
import { GET as exportRoute } from "@/app/api/v1/audit/export/route";
import { GET as auditRoute } from "@/app/api/v1/audit/route";
import { appendDecision, type DecisionEntry, distinctAuditValues, MAX_TERM_MATCHES } from "@/lib/audit";
import { db } from "@/lib/db/client";
import { call, tokenFor } from "../support/http";
import { setupTestDatabase, withClient } from "../support/database";

// The decision log's actor and action filters as a person types them: a part of
// the name, any case (`support` finds every support actor), matched against the distinct values
// (a skip scan of the (column, seq) index) and walked per value, merged by seq. The oracle is
// the table read with SQL (lower(...) LIKE), which is what the filter must equal.

const database = setupTestDatabase();
let auditor: string;
beforeAll(async () => {
  auditor = await tokenFor("auditor");
});

const newTag = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;

async function sql(text: string, params: unknown[] = []) {
  return withClient(database.current.url, async (c) => (await c.query(text, params)).rows);
}

async function append(entries: DecisionEntry[]) {
  for (const entry of entries) await appendDecision(db(), entry);
}

async function page(query: string) {
  return call(auditRoute, { token: auditor, path: `/api/v1/audit?${query}` });
}

/** Every entry the query finds, following nextCursor, as seqs newest first. */
async function walk(query: string, limit: number): Promise<number[]> {
  const seqs: number[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 500; pages++) {
    const answer = await page(`${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const body = answer.body as { items: { seq: number }[]; nextCursor: string | null };
    expect(body.items.length).toBeLessThanOrEqual(limit);
    seqs.push(...body.items.map((i) => i.seq));
    cursor = body.nextCursor;
    if (!cursor) return seqs;
  }
  throw new Error("pagination does not end");
}

async function oracle(condition: string, params: unknown[]): Promise<number[]> {
  const rows = await sql(`SELECT seq::int AS seq FROM decision_log WHERE ${condition} ORDER BY seq DESC`, params);
  return rows.map((r) => r.seq as number);
}

describe("GET /api/v1/audit: actor and action match a part of the name, ignoring case", () => {
  it("`support` finds the entries of every support actor, across pages, newest first", async () => {
    const tag = newTag();
    const entries: DecisionEntry[] = [];
    for (let i = 0; i < 7; i++) {
      entries.push({
        actor: `user:Support-${tag}@demo.test`,
        actorRole: "support",
        action: "review.note",
        reason: `a${i}`,
      });
      entries.push({ actor: `token:support-bot-${tag}`, actorRole: "support", action: "review.note", reason: `b${i}` });
      entries.push({
        actor: `user:owner-${tag}@demo.test`,
        actorRole: "owner",
        action: "review.replay",
        reason: `c${i}`,
      });
    }
    await append(entries);

    const want = await oracle("lower(actor) LIKE '%support%'", []);
    expect(want.length).toBeGreaterThanOrEqual(14);
    // Three pages and more: the per-actor walks merge in seq order and the cursor keeps its place.
    expect(await walk("actor=support", 4)).toEqual(want);
    expect(await walk(`actor=SUPPORT-BOT-${tag}`, 3)).toEqual(await oracle("actor = $1", [`token:support-bot-${tag}`]));
    // An exact value still selects only itself (review.replay is not review.replay-withdrawn).
    const exact = await walk(`actor=user:owner-${tag}@demo.test&action=review.replay`, 5);
    expect(exact).toEqual(await oracle("actor = $1 AND action = 'review.replay'", [`user:owner-${tag}@demo.test`]));
    expect(exact).toHaveLength(7);
  });

  it("`review` in the action finds every review action; with an actor part both apply", async () => {
    const tag = newTag();
    await append([
      { actor: `user:mix-${tag}@demo.test`, action: "review.cancel" },
      { actor: `user:mix-${tag}@demo.test`, action: "operation.created" },
      { actor: `user:mix-${tag}@demo.test`, action: "review.note" },
      { actor: `user:other-${tag}@demo.test`, action: "review.note" },
    ]);
    const found = await walk(`actor=MIX-${tag}&action=Review`, 10);
    expect(found).toEqual(await oracle("actor = $1 AND lower(action) LIKE '%review%'", [`user:mix-${tag}@demo.test`]));
    expect(found).toHaveLength(2);
    expect(await walk(`actor=mix-${tag}&action=no-such-action-${tag}`, 10)).toEqual([]);
  });

  it("the export matches the same way", async () => {
    const tag = newTag();
    await append([
      { actor: `user:Exp-${tag}@demo.test`, action: "review.note", reason: "one" },
      { actor: `token:exp-${tag}`, action: "review.note", reason: "two" },
    ]);
    const response = await exportRoute(
      new Request(`http://localhost/api/v1/audit/export?format=ndjson&actor=EXP-${tag}`, {
        headers: { authorization: `Bearer ${auditor}` },
      }),
      { params: Promise.resolve({}) },
    );
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain(`user:Exp-${tag}@demo.test`);
    expect(text).toContain(`token:exp-${tag}`);
  });

  it(`refuses a part that matches more than ${MAX_TERM_MATCHES} actors with a 400 naming the field`, async () => {
    const tag = newTag();
    await append(
      Array.from({ length: MAX_TERM_MATCHES + 1 }, (_, i) => ({ actor: `many-${tag}-${i}`, action: "review.note" })),
    );
    const answer = await page(`actor=many-${tag}`);
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toContain("actor");
  });

  it("lists the distinct actions by a skip scan of the index (the Action filter's choices)", async () => {
    const tag = newTag();
    await append([{ actor: `user:list-${tag}@demo.test`, action: `custom.action-${tag}` }]);
    const actions = await distinctAuditValues("action", true);
    expect(actions).toContain(`custom.action-${tag}`);
    const all = (await sql(`SELECT DISTINCT action FROM decision_log ORDER BY action`)).map((r) => r.action);
    expect([...actions].sort()).toEqual([...all].sort());
  });
});
