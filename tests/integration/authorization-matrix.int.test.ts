import { randomUUID } from "node:crypto";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "@/lib/auth";
import { ROLES, type Permission, type Role, type Grant, holdsPermission } from "@/lib/access/client";
import { canIn } from "@/lib/access";
import { routeDefinitions } from "@/lib/openapi/document";
import { ROUTE_MODULES } from "@/app/api/route-modules.generated";
import { type ApiOperation, documentedAnswers } from "@/lib/openapi/operation";
import { createOperation } from "@/lib/operations";
import { createPerson, signIn } from "../support/auth";
import { setupTestDatabase, withClient } from "../support/database";
import { call } from "../support/http";

/*
 * The generated authorization test (docs/decisions/0030-domain-enforcement.md): every
 * operation of the API as the OpenAPI document lists it (method, route, permission), called on
 * its real handler against the real database, by every role holding its grant everywhere and in
 * the domain `payments` only (and by nobody), on records, operations and kinds of `payments`,
 * of `messaging` and of no domain. Each answer must be exactly the one the rules give:
 *
 *   no credential                                  -> 401
 *   the permission nowhere (audit.read: not global) -> 403
 *   the thing outside the caller's domains         -> 404 (the same as an unknown id)
 *   seen, but the action's permission not there    -> 403
 *   otherwise                                      -> the probe's documented answer
 *
 * A route added to the document without a probe here fails the test: say what it answers.
 */

const database = setupTestDatabase();
const sql = <T = any>(text: string, params: unknown[] = []) =>
  withClient(database.current.url, async (c) => (await c.query(text, params)).rows as T[]);

const APP_DIR = path.resolve(import.meta.dirname, "../../app");
const DOMAINS = ["payments", "messaging", null] as const;
type Domain = (typeof DOMAINS)[number];
const KIND_OF: Record<string, string> = { payments: "pay.charge", messaging: "msg.send", none: "other.thing" };
const label = (d: Domain) => d ?? "none";

interface Actor {
  name: string;
  grants: Grant[];
  token?: string;
  cookie?: string;
}

interface Target {
  domain: Domain;
  recordId: string;
  plannedOperationId: string;
  abortedOperationId: string;
  kind: string;
}

interface Probe {
  /** The thing in a domain the route is about, when it is about one. */
  target?: "record" | "operation" | "kind";
  /** Checked against the target's domain: reading it (else 404), then acting on it (else 403). */
  read?: Permission;
  act?: Permission;
  /** The answer to a caller who may not read the target, when it is not 404 (ids of a bulk selection). */
  unreadable?: number;
  /** The answer when every check passes: one the document lists. */
  allowed: number;
  /** The answer to a token that holds the permission, for a route that is a person's only. */
  asToken?: number;
  request: (
    target: Target | undefined,
    actor: Actor,
  ) => Promise<{ params?: Record<string, string>; body?: unknown; query?: string }>;
}

const nothing = async () => ({});
const reason = "authorization matrix";
let serial = 0;
const unique = () => `${Date.now().toString(36)}-${(serial += 1)}`;
const UNKNOWN = "00000000-0000-4000-8000-000000000000";

function report(kind: string) {
  const tag = unique();
  return {
    category: "manual-review",
    reason: "invalid-payload",
    requiredCheck: "look at it",
    attempts: 1,
    message: { id: `msg-${tag}`, kind, effectKey: `fx-${tag}`, payload: { n: tag } },
  };
}

async function versionOf(id: string): Promise<number> {
  const [row] = await sql<{ version: number }>(`SELECT version FROM review_records WHERE id = $1`, [id]);
  return row!.version;
}

const recordParams = (t: Target | undefined) => ({ id: t!.recordId });
const operationParams = (t: Target | undefined, which: "planned" | "aborted" = "planned") => ({
  operationId: which === "planned" ? t!.plannedOperationId : t!.abortedOperationId,
});

/** What each operation of the document is probed with, by `METHOD route`. */
const PROBES: Record<string, Probe> = {
  "GET /api/v1/reviews": { allowed: 200, request: nothing },
  "POST /api/v1/reviews": {
    allowed: 201,
    request: async (_, actor) => ({ body: report(actor.grants[0]?.domain === "payments" ? "pay.intake" : "x.intake") }),
  },
  "POST /api/v1/reviews/batch": {
    allowed: 200,
    request: async (_, actor) => ({
      body: { records: [report(actor.grants[0]?.domain === "payments" ? "pay.intake" : "x.intake")] },
    }),
  },
  "GET /api/v1/reviews/stats": { allowed: 200, request: nothing },
  "GET /api/v1/reviews/count": { allowed: 200, request: nothing },
  "GET /api/v1/reviews/groups": { allowed: 200, request: nothing },
  "GET /api/v1/reviews/[id]": {
    target: "record",
    read: "reviews.read",
    allowed: 200,
    request: async (t) => ({ params: recordParams(t) }),
  },
  // A note: repeatable, and what support and owners may both do.
  "POST /api/v1/reviews/[id]/actions": {
    target: "record",
    read: "reviews.read",
    act: "reviews.note",
    allowed: 200,
    request: async (t) => ({
      params: recordParams(t),
      body: { action: "note", expectedVersion: await versionOf(t!.recordId), reason },
    }),
  },
  // The contract's verdict for a replay changes nothing: whoever may read the record hears it
  // (a role that may not replay hears `not-eligible`).
  "POST /api/v1/reviews/[id]/verdict": {
    target: "record",
    read: "reviews.read",
    allowed: 200,
    request: async (t) => ({ params: recordParams(t), body: { action: "replay" } }),
  },
  "GET /api/v1/overview": { allowed: 200, request: nothing },
  "GET /api/v1/assignees": { allowed: 200, request: nothing },
  "POST /api/v1/replays/claim": { allowed: 200, request: async () => ({ body: { consumer: "matrix", limit: 1 } }) },
  "POST /api/v1/replays/renew": {
    allowed: 200,
    request: async () => ({ body: { consumer: "matrix", replayIds: [randomUUID()] } }),
  },
  "POST /api/v1/replays/[replayId]/outcome": {
    allowed: 404,
    request: async () => ({ params: { replayId: UNKNOWN }, body: { outcome: "applied" } }),
  },
  "GET /api/v1/audit": { allowed: 200, request: nothing },
  "GET /api/v1/audit/export": { allowed: 200, request: async () => ({ query: "format=ndjson" }) },
  "GET /api/v1/audit/verification": { allowed: 200, request: nothing },
  "GET /api/v1/operations": { allowed: 200, request: nothing },
  // A selection of a record the caller cannot see holds an unknown record (422), not a 404.
  "POST /api/v1/operations": {
    target: "record",
    read: "reviews.read",
    act: "reviews.note",
    unreadable: 422,
    allowed: 201,
    request: async (t) => ({ body: { action: "note", reason, selection: { type: "ids", ids: [t!.recordId] } } }),
  },
  "GET /api/v1/operations/[operationId]": {
    target: "operation",
    read: "operations.read",
    allowed: 200,
    request: async (t) => ({ params: operationParams(t) }),
  },
  "POST /api/v1/operations/[operationId]/dry-run": {
    target: "operation",
    read: "operations.read",
    act: "reviews.note",
    allowed: 200,
    request: async (t) => ({ params: operationParams(t), body: {} }),
  },
  // The controls that would start or end it are probed where they cannot apply (409), after
  // every authorization has passed: the checks come first.
  "POST /api/v1/operations/[operationId]/confirm": {
    target: "operation",
    read: "operations.read",
    act: "reviews.note",
    allowed: 409,
    request: async (t) => ({
      params: operationParams(t, "aborted"),
      body: { expectedVersion: 1, dryRunAt: new Date().toISOString(), checkDone: true },
    }),
  },
  "POST /api/v1/operations/[operationId]/pause": {
    target: "operation",
    read: "operations.read",
    act: "reviews.note",
    allowed: 409,
    request: async (t) => ({ params: operationParams(t), body: {} }),
  },
  "POST /api/v1/operations/[operationId]/resume": {
    target: "operation",
    read: "operations.read",
    act: "reviews.note",
    allowed: 409,
    request: async (t) => ({ params: operationParams(t), body: { reason } }),
  },
  "POST /api/v1/operations/[operationId]/abort": {
    target: "operation",
    read: "operations.read",
    act: "reviews.note",
    allowed: 409,
    request: async (t) => ({ params: operationParams(t, "aborted"), body: { reason } }),
  },
  "GET /api/v1/operations/[operationId]/items": {
    target: "operation",
    read: "operations.read",
    allowed: 200,
    request: async (t) => ({ params: operationParams(t) }),
  },
  "GET /api/v1/operations/[operationId]/log": {
    target: "operation",
    read: "operations.read",
    allowed: 200,
    request: async (t) => ({ params: operationParams(t) }),
  },
  "GET /api/v1/operations/auto-replay": { allowed: 200, request: nothing },
  "PUT /api/v1/operations/auto-replay/[kind]": {
    target: "kind",
    read: "reviews.read",
    act: "reviews.resolve",
    allowed: 200,
    request: async (t) => ({ params: { kind: t!.kind }, body: { enabled: false, reason } }),
  },
  // People and tokens change nothing here: an invalid body, refused after the authorization.
  "GET /api/v1/people": { allowed: 200, request: nothing },
  "POST /api/v1/people": { allowed: 400, request: async () => ({ body: {} }) },
  "POST /api/v1/people/[userId]/disable": {
    allowed: 400,
    request: async () => ({ params: { userId: UNKNOWN }, body: {} }),
  },
  "POST /api/v1/people/[userId]/enable": {
    allowed: 400,
    request: async () => ({ params: { userId: UNKNOWN }, body: {} }),
  },
  "POST /api/v1/people/[userId]/role": {
    allowed: 400,
    request: async () => ({ params: { userId: UNKNOWN }, body: {} }),
  },
  "POST /api/v1/people/[userId]/password-link": {
    allowed: 400,
    request: async () => ({ params: { userId: UNKNOWN }, body: {} }),
  },
  "GET /api/v1/tokens": { allowed: 200, request: nothing },
  "POST /api/v1/tokens": { allowed: 400, request: async () => ({ body: {} }) },
  "POST /api/v1/tokens/[tokenId]/revoke": {
    allowed: 400,
    request: async () => ({ params: { tokenId: UNKNOWN }, body: {} }),
  },
  // Domains, grants, webhooks and approval policies (admins): listed, or an invalid body or an
  // unknown id refused after the authorization; nothing changes.
  "GET /api/v1/domains": { allowed: 200, request: nothing },
  "POST /api/v1/domains": { allowed: 400, request: async () => ({ body: {} }) },
  "PUT /api/v1/domains/[name]": { allowed: 400, request: async () => ({ params: { name: "nosuch" }, body: {} }) },
  "DELETE /api/v1/domains/[name]": { allowed: 400, request: async () => ({ params: { name: "nosuch" }, body: {} }) },
  "GET /api/v1/people/[userId]/grants": { allowed: 404, request: async () => ({ params: { userId: UNKNOWN } }) },
  "POST /api/v1/people/[userId]/grants": {
    allowed: 400,
    request: async () => ({ params: { userId: UNKNOWN }, body: {} }),
  },
  "DELETE /api/v1/people/[userId]/grants": {
    allowed: 400,
    request: async () => ({ params: { userId: UNKNOWN }, body: {} }),
  },
  "GET /api/v1/webhooks": { allowed: 200, request: nothing },
  "POST /api/v1/webhooks": { allowed: 400, request: async () => ({ body: {} }) },
  "POST /api/v1/webhooks/[webhookId]/remove": {
    allowed: 404,
    request: async () => ({ params: { webhookId: UNKNOWN }, body: { reason: "test" } }),
  },
  "GET /api/v1/webhooks/[webhookId]/deliveries": {
    allowed: 404,
    request: async () => ({ params: { webhookId: UNKNOWN } }),
  },
  "PUT /api/v1/webhooks/[webhookId]": {
    allowed: 400,
    request: async () => ({ params: { webhookId: UNKNOWN }, body: {} }),
  },
  "POST /api/v1/webhooks/[webhookId]/disable": {
    allowed: 404,
    request: async () => ({ params: { webhookId: UNKNOWN }, body: { reason: "test" } }),
  },
  "POST /api/v1/webhooks/[webhookId]/enable": {
    allowed: 404,
    request: async () => ({ params: { webhookId: UNKNOWN }, body: { reason: "test" } }),
  },
  "POST /api/v1/webhooks/[webhookId]/test": { allowed: 404, request: async () => ({ params: { webhookId: UNKNOWN } }) },
  "POST /api/v1/webhooks/[webhookId]/deliveries/[deliveryId]/redeliver": {
    allowed: 404,
    request: async () => ({ params: { webhookId: UNKNOWN, deliveryId: "msg_none" }, body: { reason: "test" } }),
  },
  "GET /api/v1/approval-policies": { allowed: 200, request: nothing },
  "PUT /api/v1/approval-policies": { allowed: 400, request: async () => ({ body: {} }) },
  "POST /api/v1/approval-policies/remove": { allowed: 400, request: async () => ({ body: {} }) },
  // Approvals: what waits is listed to readers; answering an unknown request is a 404 to a
  // caller who may act on records at all.
  "GET /api/v1/approvals": { allowed: 200, request: nothing },
  "POST /api/v1/approvals/[approvalId]/approve": {
    allowed: 404,
    request: async () => ({ params: { approvalId: UNKNOWN }, body: { reason } }),
  },
  "POST /api/v1/approvals/[approvalId]/reject": {
    allowed: 404,
    request: async () => ({ params: { approvalId: UNKNOWN }, body: { reason } }),
  },
  "POST /api/v1/approvals/[approvalId]/withdraw": {
    allowed: 404,
    request: async () => ({ params: { approvalId: UNKNOWN }, body: { reason } }),
  },
  // A person's own settings: a token has none.
  "GET /api/v1/me/preferences": { allowed: 200, asToken: 403, request: nothing },
  "PUT /api/v1/me/preferences": { allowed: 400, asToken: 403, request: async () => ({ body: {} }) },
  // Saved views are a person's too; an unknown view is a 404 before its owner is asked about.
  "GET /api/v1/views": { allowed: 200, asToken: 403, request: nothing },
  "POST /api/v1/views": { allowed: 400, asToken: 403, request: async () => ({ body: {} }) },
  "PUT /api/v1/views/[viewId]": {
    allowed: 404,
    asToken: 403,
    request: async () => ({ params: { viewId: UNKNOWN }, body: { shared: true } }),
  },
  "DELETE /api/v1/views/[viewId]": {
    allowed: 404,
    asToken: 403,
    request: async () => ({ params: { viewId: UNKNOWN } }),
  },
  "GET /api/health": { allowed: 200, request: nothing },
  "GET /api/metrics": { allowed: 200, request: nothing },
  "GET /api/openapi.json": { allowed: 200, request: nothing },
};

/** The API's own operations (Better Auth's sign-in routes have their own tests). */
const OPERATIONS = routeDefinitions(ROUTE_MODULES).filter((op) => !op.route.startsWith("/api/auth/"));
const keyOf = (op: ApiOperation) => `${op.method} ${op.route}`;

/** The answer the rules give (the table at the top). */
function expected(op: ApiOperation, probe: Probe, actor: Actor | null, target: Target | undefined): number {
  if (op.access.kind === "public") return probe.allowed;
  if (!actor) return 401;
  if (op.access.kind === "permission" && !holdsPermission(actor.grants, op.access.permission)) return 403;
  if (probe.asToken !== undefined && actor.token) return probe.asToken;
  if (target && probe.read && !canIn(actor.grants, probe.read, target.domain)) return probe.unreadable ?? 404;
  if (target && probe.act && !canIn(actor.grants, probe.act, target.domain)) return 403;
  return probe.allowed;
}

type Handler = Parameters<typeof call>[0];

/** A request to the handler as Next makes it; the body parsed when it is JSON (metrics are text). */
async function send(
  handler: Handler,
  method: string,
  requestPath: string,
  options: { params?: Record<string, string>; body?: unknown; headers: Record<string, string>; token?: string },
): Promise<{ status: number; body: any }> {
  const headers = new Headers(options.headers);
  if (options.token) headers.set("authorization", `Bearer ${options.token}`);
  if (options.body !== undefined) headers.set("content-type", "application/json");
  const request = new Request(`http://localhost${requestPath}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const response = await handler(request, { params: Promise.resolve(options.params ?? {}) });
  const text = await response.text();
  const json = (response.headers.get("content-type") ?? "").startsWith("application/json");
  return { status: response.status, body: json && text ? JSON.parse(text) : text };
}

async function handlerOf(op: ApiOperation) {
  const routeModule = (await import(path.join(APP_DIR, op.route.slice(1), "route.ts"))) as Record<string, unknown>;
  const handler = routeModule[op.method];
  if (typeof handler !== "function") throw new Error(`${keyOf(op)}: no handler`);
  return handler as Handler;
}

function pathOf(route: string, params: Record<string, string> = {}) {
  return route.replace(/\[([^\]]+)\]/g, (_, name: string) => encodeURIComponent(params[name] ?? name));
}

const actors: Actor[] = [];
const targets: Target[] = [];

async function tokenActor(role: Role, domain: string | null): Promise<Actor> {
  const name = `matrix-${role}-${domain ?? "all"}-${unique()}`;
  const { id, token } = await createApiToken(name, role);
  if (domain) await sql(`UPDATE api_tokens SET domain = $2 WHERE id = $1`, [id, domain]);
  return { name: `${role} token in ${domain ?? "every domain"}`, grants: [{ role, domain }], token };
}

beforeAll(async () => {
  await sql(`INSERT INTO domains (name, created_by) VALUES ('payments', 'test'), ('messaging', 'test')`);
  await sql(`INSERT INTO domain_kinds (pattern, domain) VALUES ('pay.*', 'payments'), ('msg.*', 'messaging')`);
  for (const role of ROLES) for (const domain of [null, "payments"]) actors.push(await tokenActor(role, domain));
  // A person holding two roles in two domains: owner of messaging, auditor of payments.
  const person = await createPerson("owner", "mixed");
  await sql(`UPDATE role_grants SET domain = 'messaging' WHERE user_id = $1`, [person.id]);
  await sql(
    `INSERT INTO role_grants (user_id, role, domain, source, created_by) VALUES ($1, 'auditor', 'payments', 'manual', 'test')`,
    [person.id],
  );
  const session = await signIn(person.email, person.password);
  actors.push({
    name: "person: owner of messaging, auditor of payments",
    grants: [
      { role: "owner", domain: "messaging" },
      { role: "auditor", domain: "payments" },
    ],
    cookie: session.cookie!,
  });
  const consumer = actors.find((a) => a.grants[0]!.role === "consumer" && a.grants[0]!.domain === null)!;
  const { POST: reportRoute } = await import("@/app/api/v1/reviews/route");
  const system = { kind: "user" as const, id: "system:test", label: "system:test", role: "owner" as const };
  for (const domain of DOMAINS) {
    const kind = KIND_OF[label(domain)]!;
    const created = await call(reportRoute, { token: consumer.token, body: report(kind) });
    expect(created.status).toBe(201);
    const recordId = created.body.id as string;
    const ops: string[] = [];
    for (let i = 0; i < 2; i++) {
      ops.push(await createOperation({ action: "note", reason, selection: { type: "ids", ids: [recordId] } }, system));
    }
    await sql(`UPDATE bulk_operations SET state = 'aborted', finished_at = now() WHERE id = $1`, [ops[1]]);
    targets.push({ domain, recordId, plannedOperationId: ops[0]!, abortedOperationId: ops[1]!, kind });
  }
});

describe("authorization matrix: every API operation x role x domain", () => {
  it("has a probe for every operation of the document, and no probe for one it lacks", () => {
    const keys = OPERATIONS.map(keyOf).sort();
    expect(keys.filter((k) => !PROBES[k])).toEqual([]);
    expect(Object.keys(PROBES).filter((k) => !keys.includes(k))).toEqual([]);
  });

  it("answers each caller exactly as the rules say", { timeout: 120_000 }, async () => {
    const mismatches: string[] = [];
    let calls = 0;
    for (const op of OPERATIONS) {
      const probe = PROBES[keyOf(op)];
      if (!probe) continue;
      const handler = await handlerOf(op);
      const documented = Object.keys(documentedAnswers(op)).map(Number);
      for (const actor of [null, ...actors]) {
        for (const target of probe.target ? targets : [undefined]) {
          const want = expected(op, probe, actor, target);
          const { params, body, query } = await probe.request(target, actor ?? { name: "nobody", grants: [] });
          const headers: Record<string, string> = actor?.cookie ? { cookie: actor.cookie } : {};
          const requestPath = pathOf(op.route, params) + (query ? `?${query}` : "");
          const answer = await send(handler, op.method, requestPath, {
            params,
            body,
            headers,
            token: actor?.token,
          });
          calls += 1;
          const where = target ? ` on ${probe.target} of ${label(target.domain)}` : "";
          if (answer.status !== want) {
            mismatches.push(
              `${keyOf(op)} by ${actor?.name ?? "nobody"}${where}: ${answer.status} (want ${want}) ${JSON.stringify(answer.body?.error ?? "").slice(0, 160)}`,
            );
          }
          // The rules' answer must be one the document gives (401/403/404 are documented per route).
          if (!documented.includes(want)) {
            mismatches.push(`${keyOf(op)}: ${want} is not documented`);
          }
        }
      }
    }
    expect(mismatches).toEqual([]);
    expect(calls).toBeGreaterThan(500);
  });

  it("a record outside the caller's domains is the same 404 as an unknown id (no existence leak)", async () => {
    const scopedOwner = actors.find((a) => a.grants[0]!.role === "owner" && a.grants[0]!.domain === "payments")!;
    const { GET } = await import("@/app/api/v1/reviews/[id]/route");
    const messaging = targets.find((t) => t.domain === "messaging")!;
    const hidden = await call(GET, {
      token: scopedOwner.token,
      params: { id: messaging.recordId },
      path: `/api/v1/reviews/${messaging.recordId}`,
    });
    const unknown = await call(GET, {
      token: scopedOwner.token,
      params: { id: UNKNOWN },
      path: `/api/v1/reviews/${UNKNOWN}`,
    });
    expect(hidden.status).toBe(404);
    expect(hidden.body.error.code).toBe(unknown.body.error.code);
    expect(hidden.body.error.message.replace(messaging.recordId, "<id>")).toBe(
      unknown.body.error.message.replace(UNKNOWN, "<id>"),
    );
  });
});
