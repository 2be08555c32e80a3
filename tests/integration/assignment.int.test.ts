/**
 * Assignment (ADR 0028): assign to me, to a person (by id or email), unassign; owners and support
 * may; the assignee must be an owner or support and not disabled (422 naming `assignee`); every
 * change is in history and the decision log; the list filters by `assignee=me|<id>|none` and
 * its items, like the detail, name the assignee.
 */
import { describe, expect, it } from "vitest";
import { GET as assignees } from "@/app/api/v1/assignees/route";
import { POST as act } from "@/app/api/v1/reviews/[id]/actions/route";
import { GET as detail } from "@/app/api/v1/reviews/[id]/route";
import { GET as list, POST as report } from "@/app/api/v1/reviews/route";
import { createPerson, signedIn } from "../support/auth";
import { call, tokenFor } from "../support/http";
import { setupTestDatabase, withClient } from "../support/database";

const database = setupTestDatabase();
const sql = <T = any>(text: string, params: unknown[] = []) =>
  withClient(database.current.url, async (c) => (await c.query(text, params)).rows as T[]);

const tokens: Record<string, string> = {};
async function as(role: string) {
  tokens[role] ??= await tokenFor(role as never);
  return tokens[role]!;
}

async function record() {
  const tag = Math.random().toString(36).slice(2, 10);
  const message = {
    id: `msg-${tag}`,
    kind: `assign.${tag}`,
    effectKey: `fx-${tag}`,
    sequenceKey: `key-${tag}`,
    sequence: 4,
    payload: { schema: "2021-03" },
  };
  const created = await call(report, {
    token: await as("consumer"),
    body: { category: "manual-review", reason: "invalid-payload", requiredCheck: "look", attempts: 1, message },
  });
  expect(created.status).toBe(201);
  return { id: created.body.id as string, kind: message.kind };
}

type Caller = { token: string } | { cookie: string };
const auth = (caller: Caller) => ("token" in caller ? { token: caller.token } : { headers: { cookie: caller.cookie } });

async function assign(caller: Caller, id: string, assignee: string | null, expectedVersion: number, reason = "yours") {
  return call(act, { ...auth(caller), params: { id }, body: { action: "assign", expectedVersion, reason, assignee } });
}

async function listed(caller: Caller, query: string) {
  return call(list, { ...auth(caller), path: `/api/v1/reviews?${query}` });
}

describe("assign", () => {
  it("an owner assigns to a support person by email; history, decision log, detail and list say so", async () => {
    const r = await record();
    const support = await createPerson("support", "assignee");
    const owner = { token: await as("owner") };
    const res = await assign(owner, r.id, support.email.toUpperCase(), 1, "support knows this provider");
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ version: 2, status: "open", assignee: { id: support.id, email: support.email } });
    expect(res.body.history.at(-1)).toMatchObject({
      action: "assign",
      reason: "support knows this provider",
      details: { assignee: { id: support.id, email: support.email }, previousAssignee: null },
    });
    const log = await sql(`SELECT action, reason, details FROM decision_log WHERE review_id = $1 ORDER BY seq`, [r.id]);
    expect(log.at(-1)).toMatchObject({ action: "review.assign", reason: "support knows this provider" });
    expect(log.at(-1).details).toMatchObject({ assignee: { id: support.id }, version: 2, checkDone: false });
    const byId = await listed(owner, `assignee=${support.id}`);
    expect(byId.body.items.map((i: { id: string }) => i.id)).toEqual([r.id]);
    expect(byId.body.items[0].assignee).toEqual({ id: support.id, name: expect.any(String), email: support.email });
    const fresh = await call(detail, { ...auth(owner), params: { id: r.id } });
    expect(fresh.body.assignee).toMatchObject({ id: support.id });
  });

  it("support assigns to me (signed in), the Mine filter shows it, and unassigning shows it under none", async () => {
    const person = await signedIn("support", "mine");
    const me = { cookie: person.cookie };
    const r = await record();
    const other = await record();
    const res = await assign(me, r.id, "me", 1, "I'll take it");
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.assignee).toMatchObject({ id: person.id, email: person.email });
    expect(res.body.history.at(-1).actor).toBe(`user:${person.email}`);
    const mine = await listed(me, "assignee=me");
    expect(mine.body.items.map((i: { id: string }) => i.id)).toEqual([r.id]);
    const unassigned = await assign(me, r.id, null, 2, "handing back");
    expect(unassigned.status).toBe(200);
    expect(unassigned.body.assignee).toBeNull();
    expect(unassigned.body.history.at(-1).details).toMatchObject({
      assignee: null,
      previousAssignee: { id: person.id },
    });
    expect((await listed(me, "assignee=me")).body.items).toEqual([]);
    const none = await listed(me, `assignee=none&kind=${other.kind}`);
    expect(none.body.items.map((i: { id: string }) => i.id)).toEqual([other.id]);
    expect(none.body.items[0].assignee).toBeNull();
  });

  it("assignment may move from one person to another, and naming the current one again is a 409", async () => {
    const r = await record();
    const a = await createPerson("owner", "first");
    const b = await createPerson("support", "second");
    const owner = { token: await as("owner") };
    expect((await assign(owner, r.id, a.id, 1)).status).toBe(200);
    const again = await assign(owner, r.id, a.id, 2);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("no-change");
    const moved = await assign(owner, r.id, b.email, 2, "b is on call");
    expect(moved.status).toBe(200);
    expect(moved.body.history.at(-1).details).toMatchObject({ assignee: { id: b.id }, previousAssignee: { id: a.id } });
  });

  it("refuses an assignee who cannot act, is disabled, or is nobody: 422 naming assignee, nothing written", async () => {
    const r = await record();
    const owner = { token: await as("owner") };
    const auditor = await createPerson("auditor");
    const admin = await createPerson("admin");
    const disabled = await createPerson("support", "disabled");
    await sql(`UPDATE users SET banned = true WHERE id = $1`, [disabled.id]);
    for (const [assignee, code] of [
      [auditor.email, "assignee-unavailable"],
      [admin.id, "assignee-unavailable"],
      [disabled.email, "assignee-unavailable"],
      ["nobody@test.local", "assignee-unavailable"],
      ["00000000-0000-4000-8000-000000000000", "assignee-unavailable"],
      ["not a person", "assignee-unavailable"],
      ["me", "assignee-not-a-person"],
    ] as const) {
      const res = await assign(owner, r.id, assignee, 1);
      expect(res.status, assignee).toBe(422);
      expect(res.body.error.code, assignee).toBe(code);
      expect(res.body.error.issues[0].path).toBe("assignee");
    }
    // Who does not exist, who may not act and who is disabled get the very same answer: it tells
    // nothing about people the caller may not assign.
    const answers = new Set<string>();
    for (const assignee of [auditor.email, admin.id, disabled.email, "nobody@test.local"]) {
      const { body } = await assign(owner, r.id, assignee, 1);
      answers.add(JSON.stringify(body.error));
    }
    expect(answers.size).toBe(1);
    expect([...answers][0]).not.toMatch(/auditor|admin|disabled|test\.local/);
    const missing = await call(act, {
      token: owner.token,
      params: { id: r.id },
      body: { action: "assign", expectedVersion: 1, reason: "x" },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error.issues[0].path).toBe("assignee");
    const [row] = await sql(`SELECT version, assignee_id FROM review_records WHERE id = $1`, [r.id]);
    expect(row).toEqual({ version: 1, assignee_id: null });
  });

  it("roles: auditors and consumers get 403; a stale version is a 409; a finished record is not assigned", async () => {
    const r = await record();
    const support = await createPerson("support");
    for (const role of ["auditor", "consumer"]) {
      expect((await assign({ token: await as(role) }, r.id, support.id, 1)).status, role).toBe(403);
    }
    const stale = await assign({ token: await as("support") }, r.id, support.id, 7);
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe("stale-version");
    const cancelled = await call(act, {
      token: await as("owner"),
      params: { id: r.id },
      body: { action: "cancel", expectedVersion: 1, reason: "done", checkDone: true },
    });
    expect(cancelled.status).toBe(200);
    const late = await assign({ token: await as("owner") }, r.id, support.id, 2);
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe("not-allowed");
  });
});

describe("GET /api/v1/assignees and the list's assignee filter", () => {
  it("lists owners and support who are not disabled, for support and owners; auditors get 403", async () => {
    const owner = await createPerson("owner", "listed");
    const auditor = await createPerson("auditor", "unlisted");
    const disabled = await createPerson("support", "gone");
    await sql(`UPDATE users SET banned = true WHERE id = $1`, [disabled.id]);
    const res = await call(assignees, { token: await as("support") });
    expect(res.status).toBe(200);
    const emails = res.body.people.map((p: { email: string }) => p.email);
    expect(emails).toContain(owner.email);
    expect(emails).not.toContain(auditor.email);
    expect(emails).not.toContain(disabled.email);
    expect(res.body.people.find((p: { email: string }) => p.email === owner.email)).toMatchObject({
      id: owner.id,
      role: "owner",
    });
    expect((await call(assignees, { token: await as("auditor") })).status).toBe(403);
  });

  it("shows a person whose headline role does not act as the acting role they hold (an auditor who also owns: owner)", async () => {
    const auditor = await createPerson("auditor", "also-owns");
    await sql(`INSERT INTO role_grants (user_id, role, domain, created_by) VALUES ($1, 'owner', NULL, 'test')`, [
      auditor.id,
    ]);
    const res = await call(assignees, { token: await as("support") });
    expect(res.body.people.find((p: { email: string }) => p.email === auditor.email)).toMatchObject({
      id: auditor.id,
      role: "owner",
    });
  });

  it("assignee=me needs a person (400 for a token); a malformed assignee is a 400 naming it", async () => {
    const owner = { token: await as("owner") };
    for (const query of ["assignee=me", "assignee=someone", "assignee="]) {
      const res = await listed(owner, query);
      expect(res.status, query).toBe(400);
      expect(JSON.stringify(res.body.error)).toContain("assignee");
    }
  });
});
