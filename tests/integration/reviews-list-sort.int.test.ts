import { beforeAll, describe, expect, it } from "vitest";
import { POST as batch } from "@/app/api/v1/reviews/batch/route";
import { GET as list } from "@/app/api/v1/reviews/route";
import { LIST_SORTS, type ListSort } from "@/lib/reviews";
import { call, tokenFor } from "../support/http";
import { setupTestDatabase, withClient } from "../support/database";

// GET /api/v1/reviews?sort= (docs/api-additions.md, ADR 0027): each order walks every record
// exactly once across keyset pages, ties broken by id, and a cursor belongs to its order. Each
// test seeds its own records under a unique kind and gives them attempts and timestamps with SQL,
// many of them equal, so ties decide the order of most rows.

const database = setupTestDatabase();

let consumer: string;
let reader: string;
beforeAll(async () => {
  consumer = await tokenFor("consumer");
  reader = await tokenFor("auditor");
});

const newTag = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;

interface Page {
  items: { id: string; attempts: number; firstSeenAt: string; lastSeenAt: string }[];
  nextCursor: string | null;
}

/** `count` open records of kind `kind-<tag>`, with few distinct attempts and timestamps. */
async function seedTied(tag: string, count: number): Promise<string[]> {
  const records = Array.from({ length: count }, (_, i) => ({
    category: "manual-review",
    reason: `reason-${tag}`,
    requiredCheck: `check ${tag} ${i}`,
    attempts: 1,
    message: { id: `m-${tag}-${i}`, kind: `kind-${tag}`, payload: { i } },
  }));
  const answer = await call(batch, { token: consumer, path: "/api/v1/reviews/batch", body: { records } });
  expect(answer.status).toBe(200);
  const ids: string[] = answer.body.results.map((r: { id: string }) => r.id);
  // Three values of each column, spread so that the three orders differ from each other and
  // from arrival order; a millisecond apart, the precision the columns keep.
  await withClient(database.current.url, (c) =>
    c.query(
      `UPDATE review_records r
          SET attempts = (v.i * 7) % 3 + 1,
              first_seen_at = timestamptz '2026-11-01 10:00:00.001+00' + ((v.i % 3) * interval '1 millisecond'),
              last_seen_at = timestamptz '2026-11-02 10:00:00.001+00' + (((v.i * 5) % 3) * interval '1 millisecond')
         FROM unnest($1::uuid[]) WITH ORDINALITY AS v(id, i)
        WHERE r.id = v.id`,
      [ids],
    ),
  );
  return ids;
}

/** The oracle: the database's own ORDER BY for a sort over a condition. */
async function orderedIds(sort: ListSort, condition: string, params: unknown[]): Promise<string[]> {
  const desc = sort.startsWith("-");
  const column = { firstSeenAt: "first_seen_at", lastSeenAt: "last_seen_at", attempts: "attempts" }[
    (desc ? sort.slice(1) : sort) as "firstSeenAt" | "lastSeenAt" | "attempts"
  ];
  const dir = desc ? "DESC" : "ASC";
  return withClient(database.current.url, async (c) => {
    const { rows } = await c.query(
      `SELECT id::text FROM review_records WHERE ${condition} ORDER BY ${column} ${dir}, id ${dir}`,
      params,
    );
    return rows.map((r) => r.id as string);
  });
}

async function listPage(query: string) {
  return call(list, { token: reader, path: `/api/v1/reviews?${query}` });
}

/** Follows nextCursor to the end; every page must answer 200. */
async function walk(params: Record<string, string>): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let pages = 1; ; pages++) {
    if (pages > 1000) throw new Error("pagination does not end");
    const query = new URLSearchParams(params);
    if (cursor) query.set("cursor", cursor);
    const answer = await listPage(query.toString());
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const page = answer.body as Page;
    ids.push(...page.items.map((i) => i.id));
    cursor = page.nextCursor;
    if (!cursor) return { ids, pages };
  }
}

function expectRefusalNaming(answer: { status: number; body: any }, field: string) {
  expect(answer.status, JSON.stringify(answer.body)).toBe(400);
  expect(answer.body.error.issues[0].path).toBe(field);
  expect(answer.body.error.message.startsWith(`${field}:`)).toBe(true);
}

describe("GET /api/v1/reviews?sort=", () => {
  it.each(LIST_SORTS)("sort=%s walks every record exactly once, in order, ties by id", async (sort) => {
    const tag = newTag();
    const seeded = await seedTied(tag, 23);
    const { ids, pages } = await walk({ kind: `kind-${tag}`, sort, limit: "4" });
    expect(pages).toBe(6);
    expect(new Set(ids).size).toBe(23);
    expect(ids).toEqual(await orderedIds(sort, "kind = $1", [`kind-${tag}`]));
    expect(new Set(ids)).toEqual(new Set(seeded));
  });

  it.each(LIST_SORTS)("sort=%s with a status filter pages the status index the same way", async (sort) => {
    const tag = newTag();
    const seeded = await seedTied(tag, 12);
    // A third of them resolved: the open walk must skip exactly those.
    const resolved = seeded.filter((_, i) => i % 3 === 0);
    await withClient(database.current.url, (c) =>
      c.query(`UPDATE review_records SET status = 'resolved' WHERE id = ANY($1::uuid[])`, [resolved]),
    );
    const { ids } = await walk({ kind: `kind-${tag}`, status: "open", sort, limit: "3" });
    expect(ids).toEqual(await orderedIds(sort, "kind = $1 AND status = 'open'", [`kind-${tag}`]));
    expect(ids).toHaveLength(8);
  });

  it("sort=-attempts walks the whole table exactly once (no filter)", async () => {
    await seedTied(newTag(), 17);
    const { ids } = await walk({ sort: "-attempts", limit: "7" });
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(await orderedIds("-attempts", "true", []));
  });

  it("without sort the order is still newest first by arrival, and items carry errorClass and lastError", async () => {
    const tag = newTag();
    const seeded = await seedTied(tag, 3);
    const answer = await listPage(`kind=kind-${tag}`);
    expect(answer.status).toBe(200);
    expect(answer.body.items.map((i: { id: string }) => i.id)).toEqual([...seeded].reverse());
    expect(Object.keys(answer.body.items[0])).toEqual(expect.arrayContaining(["errorClass", "lastError"]));
  });

  it("a cursor of another order is a 400 naming cursor, in every direction", async () => {
    const tag = newTag();
    await seedTied(tag, 5);
    const first = async (sort?: string) => {
      const answer = await listPage(`kind=kind-${tag}&limit=2${sort ? `&sort=${sort}` : ""}`);
      expect(answer.status).toBe(200);
      return answer.body.nextCursor as string;
    };
    const byAttempts = await first("-attempts");
    const byArrival = await first();
    // Another sort, the reverse direction of the same field, the default order and back.
    expectRefusalNaming(await listPage(`kind=kind-${tag}&sort=lastSeenAt&cursor=${byAttempts}`), "cursor");
    expectRefusalNaming(await listPage(`kind=kind-${tag}&sort=attempts&cursor=${byAttempts}`), "cursor");
    expectRefusalNaming(await listPage(`kind=kind-${tag}&cursor=${byAttempts}`), "cursor");
    expectRefusalNaming(await listPage(`kind=kind-${tag}&sort=-attempts&cursor=${byArrival}`), "cursor");
    // Its own order still takes it.
    expect((await listPage(`kind=kind-${tag}&sort=-attempts&cursor=${byAttempts}`)).status).toBe(200);
  });

  it.each([
    ["sort=age", "sort"],
    ["sort=-", "sort"],
    ["sort=id", "sort"],
    ["sort=ATTEMPTS", "sort"],
    ["sort=--attempts", "sort"],
    ["sort=", "sort"],
    // Forged cursors whose values PostgreSQL would refuse: a 400, never a 500.
    [
      `sort=firstSeenAt&cursor=${Buffer.from("o:firstSeenAt:2026-02-30T10:00:00.000000Z:00000000-0000-4000-8000-000000000000").toString("base64url")}`,
      "cursor",
    ],
    [
      `sort=attempts&cursor=${Buffer.from("o:attempts:99999999999:00000000-0000-4000-8000-000000000000").toString("base64url")}`,
      "cursor",
    ],
    [`sort=attempts&cursor=${Buffer.from("o:attempts:1:not-a-uuid").toString("base64url")}`, "cursor"],
  ])("%s is a 400 naming %s", async (query, field) => {
    expectRefusalNaming(await listPage(query), field);
  });
});
