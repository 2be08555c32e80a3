import { beforeAll, describe, expect, it } from "vitest";
import { GET as listAssignees } from "@/app/api/v1/assignees/route";
import { GET as listOperationsRoute, POST as createOperationRoute } from "@/app/api/v1/operations/route";
import { GET as overviewRoute } from "@/app/api/v1/overview/route";
import { GET as groupsRoute } from "@/app/api/v1/reviews/groups/route";
import { GET as listRoute, POST as reportRoute } from "@/app/api/v1/reviews/route";
import { GET as statsRoute } from "@/app/api/v1/reviews/stats/route";
import { createApiToken } from "@/lib/auth";
import type { Role } from "@/lib/access/client";
import { createOperation, pauseWhatLostAuthority } from "@/lib/operations";
import { dispatchStep } from "@/lib/actions";
import { db } from "@/lib/db/client";
import { createPerson } from "../support/auth";
import { setupTestDatabase, withClient } from "../support/database";
import { call } from "../support/http";

// What a scoped reader's lists and counts hold (docs/decisions/0030-domain-enforcement.md): the
// records of their domains' kinds only, summed from the counts tables; and how bulk operations
// treat domains at creation and while they run.

const database = setupTestDatabase();
const sql = <T = any>(text: string, params: unknown[] = []) =>
  withClient(database.current.url, async (c) => (await c.query(text, params)).rows as T[]);

let serial = 0;
async function token(role: Role, domain: string | null) {
  const { id, token } = await createApiToken(`scope-${role}-${(serial += 1)}`, role);
  if (domain) await sql(`UPDATE api_tokens SET domain = $2 WHERE id = $1`, [id, domain]);
  return token;
}

const ids: Record<string, string[]> = { payments: [], messaging: [], none: [] };
let consumer: string;

async function report(kind: string) {
  serial += 1;
  const created = await call(reportRoute, {
    token: consumer,
    body: {
      category: "manual-review",
      reason: "invalid-payload",
      requiredCheck: "look",
      attempts: 1,
      message: { id: `m-${serial}`, kind, effectKey: `fx-${serial}`, payload: {} },
    },
  });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

beforeAll(async () => {
  await sql(`INSERT INTO domains (name, created_by) VALUES ('payments', 'test'), ('messaging', 'test')`);
  await sql(
    `INSERT INTO domain_kinds (pattern, domain) VALUES ('pay.*', 'payments'), ('card.charge', 'payments'), ('msg.*', 'messaging')`,
  );
  consumer = await token("consumer", null);
  for (const kind of ["pay.refund", "card.charge", "card.charge"]) ids.payments!.push(await report(kind));
  for (const kind of ["msg.send", "msg.send"]) ids.messaging!.push(await report(kind));
  ids.none!.push(await report("other.thing"));
});

describe("a reader of one domain", () => {
  it("lists, counts and groups only the records of that domain's kinds", async () => {
    const owner = await token("owner", "payments");
    const list = await call(listRoute, { token: owner, path: "/api/v1/reviews" });
    expect(list.status).toBe(200);
    expect(list.body.items.map((i: { id: string }) => i.id).sort()).toEqual([...ids.payments!].sort());
    const stats = await call(statsRoute, { token: owner });
    expect(stats.body.total).toBe(3);
    expect(stats.body.byReason).toEqual({ "invalid-payload": 3 });
    const groups = await call(groupsRoute, { token: owner, path: "/api/v1/reviews/groups" });
    expect(groups.body.groups.map((g: { kind: string; count: number }) => [g.kind, g.count]).sort()).toEqual([
      ["card.charge", 2],
      ["pay.refund", 1],
    ]);
    // A filter for another domain's kind finds nothing, rather than those records.
    const other = await call(listRoute, { token: owner, path: "/api/v1/reviews?kind=msg.send" });
    expect(other.body.items).toEqual([]);
  });

  it("sees the overview of its domain; a global reader learns how many open records are in no domain", async () => {
    const scoped = await call(overviewRoute, { token: await token("auditor", "messaging"), path: "/api/v1/overview" });
    expect(scoped.body.open.total).toBe(2);
    expect(scoped.body.scope).toEqual({ domains: ["messaging"], openInNoDomain: null });
    expect(scoped.body.arrivals.byKind.map((s: { key: string }) => s.key)).toEqual(["msg.send"]);
    const global = await call(overviewRoute, { token: await token("auditor", null), path: "/api/v1/overview" });
    expect(global.body.open.total).toBe(6);
    expect(global.body.scope).toEqual({ domains: null, openInNoDomain: 1 });
  });

  it("assigns among the people who act in its domains", async () => {
    const inPayments = await createPerson("support", "pay-support");
    await sql(`UPDATE role_grants SET domain = 'payments' WHERE user_id = $1`, [inPayments.id]);
    const inMessaging = await createPerson("support", "msg-support");
    await sql(`UPDATE role_grants SET domain = 'messaging' WHERE user_id = $1`, [inMessaging.id]);
    const answer = await call(listAssignees, { token: await token("owner", "payments") });
    const emails = answer.body.people.map((p: { email: string }) => p.email);
    expect(emails).toContain(inPayments.email);
    expect(emails).not.toContain(inMessaging.email);
  });
});

describe("bulk operations and domains", () => {
  it("freezes a filter's selection within the creator's domains, and lists the operation to its domain only", async () => {
    const owner = await token("owner", "payments");
    const created = await call(createOperationRoute, {
      token: owner,
      body: { action: "note", reason: "scoped", selection: { type: "filter", filter: { status: "open" } } },
    });
    expect(created.status).toBe(201);
    expect(created.body.total).toBe(3);
    const [row] = await sql(`SELECT domains FROM bulk_operations WHERE id = $1`, [created.body.id]);
    expect(row.domains).toEqual(["payments"]);
    const theirs = await call(listOperationsRoute, {
      token: await token("auditor", "messaging"),
      path: "/api/v1/operations",
    });
    expect(theirs.body.items.map((o: { id: string }) => o.id)).not.toContain(created.body.id);
    const mine = await call(listOperationsRoute, { token: owner, path: "/api/v1/operations" });
    expect(mine.body.items.map((o: { id: string }) => o.id)).toContain(created.body.id);
  });

  it("refuses a selection holding records of a domain where the creator may not take the action (403 naming it)", async () => {
    const person = await createPerson("owner", "two-domains");
    await sql(`UPDATE role_grants SET domain = 'messaging' WHERE user_id = $1`, [person.id]);
    await sql(
      `INSERT INTO role_grants (user_id, role, domain, source, created_by) VALUES ($1, 'auditor', 'payments', 'manual', 'test')`,
      [person.id],
    );
    const actor = {
      kind: "user" as const,
      id: person.id,
      label: `user:${person.email}`,
      role: "owner" as const,
      grants: [
        { role: "owner" as const, domain: "messaging" },
        { role: "auditor" as const, domain: "payments" },
      ],
    };
    const before = await sql(`SELECT count(*)::int AS n FROM bulk_operations`);
    await expect(
      createOperation(
        { action: "note", reason: "both", selection: { type: "ids", ids: [ids.payments![0]!, ids.messaging![0]!] } },
        actor,
      ),
    ).rejects.toMatchObject({ kind: "forbidden", message: expect.stringContaining("payments") });
    expect(await sql(`SELECT count(*)::int AS n FROM bulk_operations`)).toEqual(before);
  });

  it("pauses an operation whose authority lost its grant in the operation's domain", async () => {
    const person = await createPerson("owner", "loses-grant");
    await sql(`UPDATE role_grants SET domain = 'messaging' WHERE user_id = $1`, [person.id]);
    const actor = {
      kind: "user" as const,
      id: person.id,
      label: `user:${person.email}`,
      role: "owner" as const,
      grants: [{ role: "owner" as const, domain: "messaging" }],
    };
    const id = await createOperation(
      { action: "note", reason: "to pause", selection: { type: "ids", ids: [...ids.messaging!] } },
      actor,
    );
    await sql(`UPDATE bulk_operations SET state = 'running' WHERE id = $1`, [id]);
    // The grant moves to payments: messaging is no longer theirs.
    await sql(`UPDATE role_grants SET domain = 'payments' WHERE user_id = $1`, [person.id]);
    const paused = await db().$transaction((tx) => pauseWhatLostAuthority(tx, `user:${person.id}`, "grant moved"));
    expect(paused.operations).toEqual([id]);
    const [row] = await sql(`SELECT state::text AS state, pause_reason FROM bulk_operations WHERE id = $1`, [id]);
    expect(row.state).toBe("paused");
    expect(row.pause_reason).toContain("domain messaging");
    // And the dispatcher would not have run it either.
    await sql(`UPDATE bulk_operations SET state = 'running' WHERE id = $1`, [id]);
    await dispatchStep(id);
    const [again] = await sql(`SELECT state::text AS state FROM bulk_operations WHERE id = $1`, [id]);
    expect(again.state).toBe("paused");
  });
});
