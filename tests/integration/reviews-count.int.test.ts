import { beforeAll, describe, expect, it } from "vitest";
import { GET as countRoute } from "@/app/api/v1/reviews/count/route";
import { GET as listRoute, POST as reportRoute } from "@/app/api/v1/reviews/route";
import type { Role } from "@/lib/access";
import { recordScope } from "@/lib/access";
import { createApiToken } from "@/lib/auth";
import { countReviews } from "@/lib/reviews";
import { setupTestDatabase, withClient } from "../support/database";
import { call } from "../support/http";

// The count of the queue's current filter (GET /api/v1/reviews/count): the list's own filters,
// within the caller's domains, capped unless asked to be exact.

const database = setupTestDatabase();
const sql = <T = any>(text: string, params: unknown[] = []) =>
  withClient(database.current.url, async (c) => (await c.query(text, params)).rows as T[]);

let serial = 0;
async function token(role: Role, domain: string | null = null) {
  const { id, token } = await createApiToken(`count-${role}-${(serial += 1)}`, role);
  if (domain) await sql(`UPDATE api_tokens SET domain = $2 WHERE id = $1`, [id, domain]);
  return token;
}

let consumer: string;
async function report(kind: string, lastError = "socket hang up") {
  serial += 1;
  const created = await call(reportRoute, {
    token: consumer,
    body: {
      category: "manual-review",
      reason: "retry-limit",
      requiredCheck: "look",
      attempts: 3,
      lastError,
      message: { id: `count-m-${serial}`, kind, effectKey: `count-fx-${serial}`, payload: { n: serial } },
    },
  });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

beforeAll(async () => {
  await sql(`INSERT INTO domains (name, created_by) VALUES ('payments', 'test')`);
  await sql(`INSERT INTO domain_kinds (pattern, domain) VALUES ('card.*', 'payments')`);
  consumer = await token("consumer");
});

describe("GET /api/v1/reviews/count", () => {
  it("counts what the list's filters select, as the list would show it", async () => {
    for (let i = 0; i < 3; i++) await report("count.kind-a");
    await report("count.kind-b");
    const reader = await token("auditor");
    const counted = await call(countRoute, { token: reader, path: "/api/v1/reviews/count?kind=count.kind-a" });
    expect(counted).toEqual({ status: 200, body: { count: 3, more: false } });
    const listed = await call(listRoute, { token: reader, path: "/api/v1/reviews?kind=count.kind-a&limit=500" });
    expect(listed.body.items).toHaveLength(3);
    // Every filter of the list applies, the search and the status too.
    const none = await call(countRoute, {
      token: reader,
      path: "/api/v1/reviews/count?kind=count.kind-a&status=resolved",
    });
    expect(none.body).toEqual({ count: 0, more: false });
  });

  it("within the caller's domains only", async () => {
    await report("card.charge");
    await report("card.charge");
    const scoped = await token("auditor", "payments");
    const all = await token("auditor");
    const mine = await call(countRoute, { token: scoped, path: "/api/v1/reviews/count?status=open" });
    const everyone = await call(countRoute, { token: all, path: "/api/v1/reviews/count?status=open" });
    expect(mine.body.count).toBe(2);
    expect(everyone.body.count).toBeGreaterThan(2);
    // Another domain's kind named in the filter: nothing, not the count of what the caller may not see.
    await report("count.kind-elsewhere");
    expect(
      (await call(countRoute, { token: scoped, path: "/api/v1/reviews/count?kind=count.kind-elsewhere" })).body,
    ).toEqual({ count: 0, more: false });
  });

  it("stops at its cap and says there are more, unless asked to be exact", async () => {
    for (let i = 0; i < 3; i++) await report("count.kind-capped");
    const scope = await recordScope([{ role: "auditor", domain: null }]);
    expect(await countReviews({ kind: "count.kind-capped" }, scope, { cap: 2 })).toEqual({ count: 2, more: true });
    expect(await countReviews({ kind: "count.kind-capped" }, scope, { cap: 2, exact: true })).toEqual({
      count: 3,
      more: false,
    });
    const reader = await token("auditor");
    const exact = await call(countRoute, {
      token: reader,
      path: "/api/v1/reviews/count?kind=count.kind-capped&exact=true",
    });
    expect(exact.body).toEqual({ count: 3, more: false });
  });

  it("refuses a bad filter naming the field", async () => {
    const reader = await token("auditor");
    const bad = await call(countRoute, { token: reader, path: "/api/v1/reviews/count?exact=maybe" });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.error)).toContain("exact");
    const me = await call(countRoute, { token: reader, path: "/api/v1/reviews/count?assignee=me" });
    expect(me.status).toBe(400);
    expect(JSON.stringify(me.body.error)).toContain("assignee");
  });
});
