/**
 * What a caller scoped to one domain learns about other domains through answers that are not
 * the records themselves (docs/decisions/0030-domain-enforcement.md): nothing. The search mode of
 * `q` is decided among the caller's records, a record's detail names only operations the caller
 * may open, the metrics answer scoped identities 403, and an assignment refusal reads the same
 * whether the person does not exist, may not act in the record's domain or is disabled.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { GET as metricsRoute } from "@/app/api/metrics/route";
import { GET as operationRoute } from "@/app/api/v1/operations/[operationId]/route";
import { POST as createOperationRoute } from "@/app/api/v1/operations/route";
import { POST as actRoute } from "@/app/api/v1/reviews/[id]/actions/route";
import { GET as detailRoute } from "@/app/api/v1/reviews/[id]/route";
import { GET as listRoute, POST as reportRoute } from "@/app/api/v1/reviews/route";
import type { Role } from "@/lib/access";
import { createApiToken } from "@/lib/auth";
import { createPerson } from "../support/auth";
import { setupTestDatabase, withClient } from "../support/database";
import { call } from "../support/http";

const database = setupTestDatabase();
const sql = <T = any>(text: string, params: unknown[] = []) =>
  withClient(database.current.url, async (c) => (await c.query(text, params)).rows as T[]);

let serial = 0;
async function token(role: Role, domain: string | null) {
  const { id, token } = await createApiToken(`side-${role}-${(serial += 1)}`, role);
  if (domain) await sql(`UPDATE api_tokens SET domain = $2 WHERE id = $1`, [id, domain]);
  return token;
}

let consumer: string;

async function report(kind: string, effectKey: string, payload: Record<string, unknown> = {}) {
  serial += 1;
  const created = await call(reportRoute, {
    token: consumer,
    body: {
      category: "manual-review",
      reason: "invalid-payload",
      requiredCheck: "look",
      attempts: 1,
      message: { id: `side-m-${serial}`, kind, effectKey, payload },
    },
  });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

beforeAll(async () => {
  await sql(`INSERT INTO domains (name, created_by) VALUES ('payments', 'test'), ('billing', 'test')`);
  await sql(`INSERT INTO domain_kinds (pattern, domain) VALUES ('card.*', 'payments'), ('invoice.*', 'billing')`);
  consumer = await token("consumer", null);
});

describe("q on the list, for a caller of one domain", () => {
  it("decides exact or substring search among the caller's records, never telling that a key exists elsewhere", async () => {
    // A billing record's effect key, which a payments record's message merely mentions.
    const key = `inv-key-${serial}-77`;
    await report("invoice.send", key);
    const payments = await report("card.charge", `fx-${serial}`, { note: `refers to ${key}` });
    const owner = await token("owner", "payments");
    const list = await call(listRoute, { token: owner, path: `/api/v1/reviews?q=${encodeURIComponent(key)}` });
    expect(list.status).toBe(200);
    // No record of theirs has that key: a substring search, which finds their record. Decided over
    // every record, the billing key made it an exact search, and the empty answer told them so.
    expect(list.body.items.map((i: { id: string }) => i.id)).toEqual([payments]);
    // A global reader gets the exact match, as before.
    const global = await call(listRoute, {
      token: await token("owner", null),
      path: `/api/v1/reviews?q=${encodeURIComponent(key)}`,
    });
    expect(global.body.items.map((i: { kind: string }) => i.kind)).toEqual(["invoice.send"]);
    // A bulk operation over the same filter selects what the list showed the caller.
    const operation = await call(createOperationRoute, {
      token: owner,
      body: { action: "note", reason: "q", selection: { type: "filter", filter: { q: key } } },
    });
    expect(operation.status).toBe(201);
    expect(operation.body.total).toBe(1);
  });
});

describe("a record's detail", () => {
  it("names only the operations the caller may open", async () => {
    const mine = await report("card.charge", `fx-op-${serial}`);
    const theirs = await report("invoice.send", `inv-op-${serial}`);
    const global = await token("owner", null);
    const both = await call(createOperationRoute, {
      token: global,
      body: { action: "note", reason: "both", selection: { type: "ids", ids: [mine, theirs] } },
    });
    expect(both.status).toBe(201);
    const owner = await token("owner", "payments");
    const only = await call(createOperationRoute, {
      token: owner,
      body: { action: "note", reason: "mine", selection: { type: "ids", ids: [mine] } },
    });
    expect(only.status).toBe(201);

    // The operation over both domains is a 404 to the payments owner: the detail does not name it.
    expect((await call(operationRoute, { token: owner, params: { operationId: both.body.id } })).status).toBe(404);
    const detail = await call(detailRoute, { token: owner, params: { id: mine } });
    expect(detail.status).toBe(200);
    expect(detail.body.operations.map((o: { operationId: string }) => o.operationId)).toEqual([only.body.id]);
    // A global reader sees both.
    const full = await call(detailRoute, { token: global, params: { id: mine } });
    expect(full.body.operations.map((o: { operationId: string }) => o.operationId).sort()).toEqual(
      [both.body.id, only.body.id].sort(),
    );
  });
});

describe("GET /api/metrics", () => {
  it("answers a scoped token 403 (its counts are of every domain), a global one 200", async () => {
    // The answer is Prometheus text, not JSON: the handler is called as Next calls it.
    const scrape = async (bearer: string) => {
      const request = new Request("http://localhost/api/metrics", { headers: { authorization: `Bearer ${bearer}` } });
      const response = await metricsRoute(request, { params: Promise.resolve({}) });
      return { status: response.status, text: await response.text() };
    };
    for (const role of ["owner", "auditor", "consumer"] as const) {
      const scoped = await scrape(await token(role, "payments"));
      expect(scoped.status, role).toBe(403);
      expect(scoped.text).not.toContain("review_console_");
      const global = await scrape(await token(role, null));
      expect(global.status, role).toBe(200);
      expect(global.text).toContain("review_console_open_records");
    }
  });
});

describe("assigning a record", () => {
  it("refuses nobody, someone of another domain and a disabled person with the very same answer", async () => {
    const record = await report("card.charge", `fx-as-${serial}`);
    const owner = await token("owner", "payments");
    const billingSupport = await createPerson("support", "billing-support");
    await sql(`UPDATE role_grants SET domain = 'billing' WHERE user_id = $1`, [billingSupport.id]);
    const auditor = await createPerson("auditor", "an-auditor");
    const disabled = await createPerson("support", "gone");
    await sql(`UPDATE users SET banned = true WHERE id = $1`, [disabled.id]);
    const answers = new Map<string, unknown>();
    for (const assignee of [billingSupport.email, auditor.email, disabled.email, "nobody@test.local"]) {
      const answer = await call(actRoute, {
        token: owner,
        params: { id: record },
        body: { action: "assign", assignee, expectedVersion: 1, reason: "on call" },
      });
      expect(answer.status, assignee).toBe(422);
      answers.set(assignee, answer.body);
    }
    const distinct = new Set([...answers.values()].map((body) => JSON.stringify(body)));
    expect(distinct.size, JSON.stringify([...answers])).toBe(1);
    expect([...distinct][0]).not.toMatch(/billing|support|auditor|disabled/);
  });
});
