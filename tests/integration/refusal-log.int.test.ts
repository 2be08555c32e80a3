/**
 * Refusals in the decision log (docs/decisions/0010-refusals-in-the-log.md): a flood of one
 * refusal is one entry at once and one with the count of its repeats, and a request another
 * site made a signed-in person's browser send writes nothing under their name. Real route
 * handlers, real PostgreSQL; the windows are closed with flushRefusals() instead of waiting.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { GET as auditList } from "@/app/api/v1/audit/route";
import { POST as act } from "@/app/api/v1/reviews/[id]/actions/route";
import { GET as list, POST as report } from "@/app/api/v1/reviews/route";
import { requireUser } from "@/lib/auth";
import { flushRefusals, REFUSAL_WINDOW_SECONDS } from "@/lib/audit";
import { signedIn } from "../support/auth";
import { setupTestDatabase, withClient } from "../support/database";
import { call, tokenFor } from "../support/http";

// requireUser reads the request through next/headers and ends through next/navigation.
const next = vi.hoisted(() => ({ headers: new Headers() }));
vi.mock("next/headers", () => ({ headers: async () => next.headers }));
vi.mock("next/navigation", () => ({
  redirect: (url: string) => {
    throw new Error(`redirect ${url}`);
  },
  forbidden: () => {
    throw new Error("forbidden");
  },
}));

const database = setupTestDatabase();
beforeAll(() => vi.stubEnv("TRUSTED_PROXIES", "127.0.0.1"));
afterAll(() => vi.unstubAllEnvs());

const sql = <T = any>(text: string, params: unknown[] = []) =>
  withClient(database.current.url, async (c) => (await c.query(text, params)).rows as T[]);

const refusalsOf = (actor: string) =>
  sql(
    `SELECT actor, actor_role, review_id::text, reason, details FROM decision_log
      WHERE actor = $1 AND action = 'authorization.refused' ORDER BY seq`,
    [actor],
  );

const tag = () => randomUUID().slice(0, 8);

async function record(): Promise<string> {
  const consumer = await tokenFor("consumer");
  const t = tag();
  const created = await call(report, {
    token: consumer,
    body: {
      category: "manual-review",
      reason: "invalid-payload",
      requiredCheck: "look",
      attempts: 1,
      message: { id: `m-${t}`, kind: "invoice.reminder", effectKey: `e-${t}`, payload: {} },
    },
  });
  expect(created.status).toBe(201);
  return created.body.id;
}

describe("a flood of one refusal", () => {
  it("one consumer token reading the list 300 times: one entry at once, one with count 299 when the window closes", async () => {
    const name = `flood-${tag()}`;
    const token = await tokenFor("consumer", name);
    const statuses = new Set<number>();
    for (let i = 0; i < 300; i++) statuses.add((await call(list, { token, path: "/api/v1/reviews" })).status);
    expect([...statuses]).toEqual([403]);

    const first = {
      actor: `token:${name}`,
      actor_role: "consumer",
      review_id: null,
      reason: "role consumer may not reviews.read",
    };
    const details = { method: "GET", path: "/api/v1/reviews", permission: "reviews.read" };
    expect(await refusalsOf(`token:${name}`)).toEqual([{ ...first, details }]);

    await flushRefusals();
    const [, repeats, ...more] = await refusalsOf(`token:${name}`);
    expect(more).toEqual([]);
    expect(repeats).toEqual({
      ...first,
      details: {
        ...details,
        count: 299,
        firstAt: expect.any(String),
        lastAt: expect.any(String),
        windowSeconds: REFUSAL_WINDOW_SECONDS,
      },
    });
    expect(Date.parse(repeats.details.lastAt)).toBeGreaterThanOrEqual(Date.parse(repeats.details.firstAt));

    // The window is over: the next refusal is written at once again.
    await call(list, { token, path: "/api/v1/reviews" });
    expect(await refusalsOf(`token:${name}`)).toHaveLength(3);
    await flushRefusals();
    expect(await refusalsOf(`token:${name}`)).toHaveLength(3);
  });

  it("repeats about different records: one window per route, the record ids listed in the count's entry", async () => {
    const ids = [await record(), await record(), await record(), await record()];
    const name = `support-${tag()}`;
    const support = await tokenFor("support", name);
    for (const id of ids) {
      const res = await call(act, {
        token: support,
        params: { id },
        path: `/api/v1/reviews/${id}/actions`,
        body: { action: "cancel", expectedVersion: 1, reason: "not mine", checkDone: true },
      });
      expect(res.status).toBe(403);
    }
    await flushRefusals();
    const entries = await refusalsOf(`token:${name}`);
    expect(entries).toEqual([
      {
        actor: `token:${name}`,
        actor_role: "support",
        review_id: ids[0],
        reason: "role support may not cancel",
        details: { method: "POST", path: `/api/v1/reviews/${ids[0]}/actions`, action: "cancel" },
      },
      {
        actor: `token:${name}`,
        actor_role: "support",
        review_id: null,
        reason: "role support may not cancel",
        details: {
          action: "cancel",
          method: "POST",
          paths: ids.slice(1).map((id) => `/api/v1/reviews/${id}/actions`),
          reviewIds: ids.slice(1),
          count: 3,
          firstAt: expect.any(String),
          lastAt: expect.any(String),
          windowSeconds: REFUSAL_WINDOW_SECONDS,
        },
      },
    ]);
  });

  it("another route or another reason is a window of its own, written at once", async () => {
    const name = `consumer-${tag()}`;
    const token = await tokenFor("consumer", name);
    await call(list, { token, path: "/api/v1/reviews" });
    await call(auditList, { token, path: "/api/v1/audit" });
    expect((await refusalsOf(`token:${name}`)).map((e) => e.reason)).toEqual([
      "role consumer may not reviews.read",
      "role consumer may not audit.read",
    ]);
    await flushRefusals();
  });
});

describe("nothing is written under a person's name by a request another site made their browser send", () => {
  it("a cross-site top-level GET of an API route the role may not read: 403, no entry", async () => {
    const support = await signedIn("support");
    for (const site of ["cross-site", "same-site"]) {
      const res = await call(auditList, {
        path: "/api/v1/audit",
        headers: { cookie: support.cookie, "sec-fetch-site": site, "sec-fetch-mode": "navigate" },
      });
      expect(res.status).toBe(403);
    }
    await flushRefusals();
    expect(await refusalsOf(`user:${support.email}`)).toEqual([]);

    // The same person opening it from the console itself (or typing it) is their own doing.
    for (const site of ["same-origin", "none"]) {
      await call(auditList, { path: "/api/v1/audit", headers: { cookie: support.cookie, "sec-fetch-site": site } });
    }
    await flushRefusals();
    expect((await refusalsOf(`user:${support.email}`)).map((e) => [e.reason, e.details.count ?? 1])).toEqual([
      ["role support may not audit.read", 1],
      ["role support may not audit.read", 1],
    ]);
  });

  it("a cross-site top-level GET of a page the role may not open: forbidden, no entry", async () => {
    const support = await signedIn("support");
    next.headers = new Headers({ cookie: support.cookie, "sec-fetch-site": "cross-site" });
    await expect(requireUser("audit.read", "/audit")).rejects.toThrow("forbidden");
    await flushRefusals();
    expect(await refusalsOf(`user:${support.email}`)).toEqual([]);

    next.headers = new Headers({ cookie: support.cookie, "sec-fetch-site": "same-origin" });
    await expect(requireUser("audit.read", "/audit")).rejects.toThrow("forbidden");
    expect(await refusalsOf(`user:${support.email}`)).toEqual([
      {
        actor: `user:${support.email}`,
        actor_role: "support",
        review_id: null,
        reason: "role support may not audit.read",
        details: { method: "GET", path: "/audit", permission: "audit.read", userId: support.id },
      },
    ]);
    await flushRefusals();
  });

  it("a cross-site POST: 403 cross-site, nothing written at all", async () => {
    const owner = await signedIn("owner");
    const [before] = await sql(`SELECT count(*)::int AS n FROM decision_log`);
    const res = await call(report, {
      path: "/api/v1/reviews",
      body: { category: "manual-review" },
      headers: { cookie: owner.cookie, origin: "https://evil.example", "sec-fetch-site": "cross-site" },
    });
    expect(res.status).toBe(403);
    await flushRefusals();
    expect(await sql(`SELECT count(*)::int AS n FROM decision_log`)).toEqual([before]);
  });
});
