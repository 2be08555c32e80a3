/**
 * Nothing a client can send may produce a 5xx, and a refusal (4xx) changes nothing.
 * fast-check sends every mutating route and every query-string route bodies, parameters and
 * query strings built from valid ones with a field replaced, removed or added (lone surrogates,
 * NUL, deep nesting, wrong types, huge numbers, garbage text), calling the route handlers
 * in-process as Next would. After each case: the status is below 500, and a 4xx left every
 * main table as it was. FUZZ_RUNS sets the cases per route (default 60).
 */
import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as auditExport } from "@/app/api/v1/audit/export/route";
import { GET as auditList } from "@/app/api/v1/audit/route";
import { POST as abortRoute } from "@/app/api/v1/operations/[operationId]/abort/route";
import { POST as confirmRoute } from "@/app/api/v1/operations/[operationId]/confirm/route";
import { POST as dryRunRoute } from "@/app/api/v1/operations/[operationId]/dry-run/route";
import { GET as itemsRoute } from "@/app/api/v1/operations/[operationId]/items/route";
import { GET as logRoute } from "@/app/api/v1/operations/[operationId]/log/route";
import { POST as pauseRoute } from "@/app/api/v1/operations/[operationId]/pause/route";
import { POST as resumeRoute } from "@/app/api/v1/operations/[operationId]/resume/route";
import { PUT as autoReplayRoute } from "@/app/api/v1/operations/auto-replay/[kind]/route";
import { GET as operationsList, POST as operationsCreate } from "@/app/api/v1/operations/route";
import { POST as outcomeRoute } from "@/app/api/v1/replays/[replayId]/outcome/route";
import { POST as claimRoute } from "@/app/api/v1/replays/claim/route";
import { POST as actionsRoute } from "@/app/api/v1/reviews/[id]/actions/route";
import { GET as detailRoute } from "@/app/api/v1/reviews/[id]/route";
import { POST as batchRoute } from "@/app/api/v1/reviews/batch/route";
import { GET as groupsRoute } from "@/app/api/v1/reviews/groups/route";
import { GET as listRoute, POST as reportRoute } from "@/app/api/v1/reviews/route";
import { GET as statsRoute } from "@/app/api/v1/reviews/stats/route";
import { setupTestDatabase, withClient } from "../support/database";
import { call, tokenFor } from "../support/http";

const database = setupTestDatabase();
const RUNS = Number(process.env.FUZZ_RUNS ?? 60);

const sql = <T = any>(text: string, params: unknown[] = []) =>
  withClient(database.current.url, async (c) => (await c.query(text, params)).rows as T[]);

/** Row counts of every main table, and a digest of the rows an update could change. */
const FOOTPRINT = `SELECT
  (SELECT count(*) FROM review_records)::int AS records,
  (SELECT count(*) FROM review_history)::int AS history,
  (SELECT count(*) FROM review_revisions)::int AS revisions,
  (SELECT count(*) FROM replays)::int AS replays,
  (SELECT count(*) FROM effect_journal)::int AS journal,
  (SELECT count(*) FROM sequence_state)::int AS sequences,
  (SELECT count(*) FROM bulk_operations)::int AS operations,
  (SELECT count(*) FROM bulk_operation_items)::int AS items,
  (SELECT count(*) FROM kind_settings)::int AS kinds,
  (SELECT count(*) FROM decision_log)::int AS log,
  (SELECT md5(coalesce(string_agg(id::text || version || status::text, ',' ORDER BY id), '')) FROM review_records) AS records_digest,
  (SELECT md5(coalesce(string_agg(id::text || state::text, ',' ORDER BY id), '')) FROM replays) AS replays_digest,
  (SELECT md5(coalesce(string_agg(id::text || version || state::text, ',' ORDER BY id), '')) FROM bulk_operations) AS operations_digest,
  (SELECT md5(coalesce(string_agg(kind || auto_replay_ready, ',' ORDER BY kind), '')) FROM kind_settings) AS kinds_digest`;

// ---------------------------------------------------------------------------------------------
// What a hostile or careless client sends.

const nest = (depth: number, leaf: unknown = 1): unknown => {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
};

const nastyString = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary", maxLength: 20 }), // any UTF-16 code unit: lone surrogates too
  fc.constantFrom(
    "\u0000",
    "a\u0000b",
    "\ud800",
    "x\udc00",
    "\udbff\udfff\ud800",
    "%ED%A0%80",
    "%",
    "",
    " ",
    "\t\n",
    "0000-01-01T00:00:00Z",
    "9999-12-31T23:59:59.999999Z",
    "-1",
    "1e400",
    "00000000-0000-0000-0000-000000000000",
    "(none)",
    "ZDo5OTk5OTk5OTk5OTk5OTk5OTk5OTk5",
    "cyc6OTIyMzM3MjAzNjg1NDc3NTgwOA",
    "\u202e\u2028",
    "🧾".repeat(600),
  ),
  fc.string({ minLength: 490, maxLength: 2100 }),
);

const nastyNumber = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, 1, -1, 2 ** 31, 2 ** 53 + 1, 1e308, -1e308, 5e-324, 0.5),
);

const nastyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: nastyString },
  { weight: 2, arbitrary: nastyNumber },
  { weight: 1, arbitrary: fc.constantFrom(true, false, null, [], {}) },
  { weight: 1, arbitrary: fc.integer({ min: 60, max: 1500 }).map((d) => nest(d)) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 70 }).map((d) => nest(d, "\u0000")) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 70 }).map((d) => nest(d, "\ud800")) },
  { weight: 1, arbitrary: fc.dictionary(nastyString, nastyString, { maxKeys: 4 }) },
  { weight: 1, arbitrary: fc.array(nastyString, { maxLength: 4 }) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
);

/** Bodies as text: what no JSON.stringify of ours would make. */
const rawBody = fc.oneof(
  fc.string(),
  fc.constantFrom(
    "",
    "{",
    "null",
    "[]",
    '"x"',
    "1e999",
    '{"a":1,}',
    '{"\\ud800":1}',
    `{"payload":${"[".repeat(100_000)}${"]".repeat(100_000)}}`,
    `{"message":${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)}}`,
    `{"records":[${"[".repeat(50_000)}${"]".repeat(50_000)}]}`,
  ),
);

type Body = { kind: "json"; value: unknown } | { kind: "raw"; text: string };

/** A valid body with one field replaced, one removed, one added, or the whole body replaced. */
function mutated(base: Record<string, unknown>, fields: string[], extra: Record<string, fc.Arbitrary<unknown>> = {}) {
  const field = fc.constantFrom(...fields, ...Object.keys(extra));
  const json = (value: unknown): Body => ({ kind: "json", value });
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant(json(base)) },
    {
      weight: 6,
      arbitrary: fc.tuple(field, nastyValue).map(([name, value]) => json({ ...base, [name]: value })),
    },
    ...Object.entries(extra).map(([name, arbitrary]) => ({
      weight: 2,
      arbitrary: arbitrary.map((value) => json({ ...base, [name]: value })),
    })),
    {
      weight: 1,
      arbitrary: field.map((name) => {
        const copy = { ...base };
        delete copy[name];
        return json(copy);
      }),
    },
    { weight: 1, arbitrary: fc.tuple(nastyString, nastyValue).map(([k, v]) => json({ ...base, [k]: v })) },
    { weight: 1, arbitrary: nastyValue.map(json) },
    { weight: 1, arbitrary: rawBody.map((text): Body => ({ kind: "raw", text })) },
  );
}

/** Query strings: known keys with hostile values, and raw percent-encoding garbage. */
function query(keys: string[]) {
  const pairs = fc.array(fc.tuple(fc.constantFrom(...keys, "zzz"), nastyString), { maxLength: 4 }).map((list) => {
    const params = new URLSearchParams();
    for (const [k, v] of list) params.append(k, v);
    return params.toString();
  });
  const raw = fc
    .array(
      fc.constantFrom(
        ...keys.map((k) => `${k}=%ED%A0%80`),
        ...keys.map((k) => `${k}=%00`),
        ...keys.map((k) => `${k}=%`),
        ...keys.map((k) => `${k}=`),
        "limit=1e3",
        "limit=-1",
        "limit=99999999999999999999",
        "cursor=%FF%FE",
        "from=0000-01-01T00:00:00Z",
        "to=10000-01-01T00:00:00Z",
        "status=open,,open,",
        "format=csv&format=ndjson",
        "%zz=1",
        "a=%E0%A4%A",
      ),
      { maxLength: 4 },
    )
    .map((parts) => parts.join("&"));
  return fc.oneof(pairs, raw);
}

// ---------------------------------------------------------------------------------------------
// The routes and the data they act on.

type Handler = Parameters<typeof call>[0];

/**
 * A path segment for the request URL (the handler gets the parameter itself, as Next passes it).
 * An empty one stays a segment (`_`): no request reaches a route through an empty segment, and
 * apiRoute names the route it answered for from the path (`/reviews//actions` is no route of app/).
 */
const segment = (value: string) => encodeURIComponent(value.toWellFormed()) || "_";

const tokens: Record<string, string> = {};
let recordIds: string[] = [];
let operationId = "";
let replayId = "";
const KIND = `fuzz.kind.${randomUUID().slice(0, 6)}`;

async function report(category: string, reason: string, n: number) {
  const t = randomUUID().slice(0, 8);
  const res = await call(reportRoute, {
    token: tokens.consumer,
    body: {
      category,
      reason,
      requiredCheck: "check it",
      attempts: 1,
      message: {
        id: `fuzz-${t}`,
        kind: KIND,
        effectKey: `fuzz-${t}:e`,
        sequenceKey: `fuzz-${t}`,
        sequence: n,
        payload: { schema: "2021-03", invoiceId: t },
      },
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

beforeAll(async () => {
  for (const role of ["consumer", "owner", "auditor"] as const) tokens[role] = await tokenFor(role);
  recordIds = [
    await report("manual-review", "invalid-payload", 1),
    await report("effect-result-unknown", "effect-result-unknown", 1),
    await report("sequence-gap", "sequence-gap", 3),
    await report("manual-review", "retry-limit", 1),
  ];
  const created = await call(operationsCreate, {
    token: tokens.owner,
    body: { action: "note", reason: "fuzz", selection: { type: "ids", ids: recordIds.slice(0, 2) } },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  operationId = created.body.id;
  // A replay claimed by the consumer token, for the outcome route.
  const replayed = await call(actionsRoute, {
    token: tokens.owner,
    params: { id: recordIds[3]! },
    path: `/api/v1/reviews/${recordIds[3]}/actions`,
    body: { action: "replay", expectedVersion: 1, reason: "fuzz", checkDone: true },
  });
  expect(replayed.status, JSON.stringify(replayed.body)).toBe(200);
  const claimed = await call(claimRoute, { token: tokens.consumer, body: { consumer: "fuzz", kinds: [KIND] } });
  expect(claimed.status, JSON.stringify(claimed.body)).toBe(200);
  replayId = claimed.body.items?.[0]?.replayId ?? "";
  expect(replayId, JSON.stringify(claimed.body)).not.toBe("");
});

/** A new operation (a note over one fresh record) in `state`: planned, dry-run done, or running. */
async function freshOperation(state: string): Promise<{ id: string; version: number; dryRunAt?: string }> {
  const record = await report("manual-review", "invalid-payload", 1);
  const created = await call(operationsCreate, {
    token: tokens.owner,
    body: { action: "note", reason: "fuzz", selection: { type: "ids", ids: [record] }, canarySize: 0 },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.id as string;
  if (state === "planned") return { id, version: created.body.version };
  const path = `/api/v1/operations/${id}`;
  const dry = await call(dryRunRoute, {
    token: tokens.owner,
    path: `${path}/dry-run`,
    params: { operationId: id },
    body: {},
  });
  expect(dry.status, JSON.stringify(dry.body)).toBe(200);
  if (state === "dry-run") return { id, version: dry.body.version, dryRunAt: dry.body.dryRun.at };
  const confirmed = await call(confirmRoute, {
    token: tokens.owner,
    path: `${path}/confirm`,
    params: { operationId: id },
    body: { expectedVersion: dry.body.version, dryRunAt: dry.body.dryRun.at, checkDone: true },
  });
  expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
  return { id, version: confirmed.body.version, dryRunAt: dry.body.dryRun.at };
}

interface Case {
  handler: Handler;
  method: string;
  path: string;
  token: string;
  params?: Record<string, string>;
  body?: Body;
  /** Makes what the case acts on (a fresh record or operation), before the footprint is taken. */
  prepare?: (c: Case) => Promise<Case>;
}

/** Stands for "the record's or operation's version as it is now" in a body, set by prepare. */
const CURRENT = "$current-version";

function withCurrentVersion(body: Body | undefined, version: number): Body | undefined {
  if (body?.kind !== "json" || !body.value || typeof body.value !== "object" || Array.isArray(body.value)) return body;
  const value = body.value as Record<string, unknown>;
  return value.expectedVersion === CURRENT ? { kind: "json", value: { ...value, expectedVersion: version } } : body;
}

let cases = 0;
const statuses = new Map<number, number>();

/**
 * Like call() in tests/support/http.ts, but any answer is read whole (an export streams CSV or
 * NDJSON; a body that breaks off mid-stream fails the case) and parsed only when it is JSON.
 */
async function send(c: Case): Promise<{ status: number; body: any }> {
  const headers = new Headers({ authorization: `Bearer ${c.token}` });
  let body: string | undefined;
  if (c.body) {
    headers.set("content-type", "application/json");
    body = c.body.kind === "json" ? JSON.stringify(c.body.value) : c.body.text;
  }
  const request = new Request(`http://localhost${c.path}`, { method: c.method, headers, body });
  const response = await c.handler(request, { params: Promise.resolve(c.params ?? {}) });
  const text = await response.text();
  const json = response.headers.get("content-type")?.startsWith("application/json");
  return { status: response.status, body: json && text ? JSON.parse(text) : text };
}

async function check(planned: Case): Promise<void> {
  const c = planned.prepare ? await planned.prepare(planned) : planned;
  const before = (await sql(FOOTPRINT))[0];
  const answer = await send(c);
  cases += 1;
  statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
  const shown = () =>
    `${c.method} ${c.path.slice(0, 300)} ${JSON.stringify(c.params ?? {}).slice(0, 200)} ${JSON.stringify(c.body)?.slice(0, 300)} -> ${answer.status} ${JSON.stringify(answer.body)?.slice(0, 300)}`;
  expect(answer.status, shown()).toBeLessThan(500);
  if (answer.status >= 400) {
    expect(answer.body?.error?.code, shown()).toEqual(expect.any(String));
    expect((await sql(FOOTPRINT))[0], `a ${answer.status} wrote: ${shown()}`).toEqual(before);
  }
}

const anyId = () => fc.oneof(fc.constantFrom(...recordIds), fc.uuid(), nastyString);

async function fuzz(name: string, arbitrary: fc.Arbitrary<Case>) {
  await fc.assert(
    fc.asyncProperty(arbitrary, async (c) => check(c)),
    { numRuns: RUNS, endOnFailure: true },
  );
  expect(name).toBeTruthy();
}

afterAll(() => {
  const byStatus = [...statuses.entries()].sort(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`);
  console.log(`no-5xx fuzz: ${cases} cases run (${byStatus.join(", ")})`);
});

describe("no 5xx from anything a client sends; a 4xx writes nothing", { timeout: 600_000 }, () => {
  it("POST /api/v1/reviews", async () => {
    const base = {
      category: "manual-review",
      reason: "invalid-payload",
      requiredCheck: "look",
      attempts: 1,
      lastError: "E: x",
      source: { transport: "redis-streams", queue: "q" },
      message: { id: "m", kind: KIND, effectKey: "e", payload: {} },
    };
    const message = fc.oneof(
      nastyValue,
      fc.dictionary(fc.constantFrom("id", "kind", "effectKey", "sequenceKey", "sequence", "payload", "x"), nastyValue),
    );
    await fuzz(
      "report",
      mutated(base, Object.keys(base), { message, source: fc.dictionary(nastyString, nastyValue) }).map((body) => ({
        handler: reportRoute,
        method: "POST",
        path: "/api/v1/reviews",
        token: tokens.consumer!,
        body,
      })),
    );
  });

  it("POST /api/v1/reviews/batch", async () => {
    const record = { category: "sequence-gap", reason: "x", requiredCheck: "y", attempts: 0, message: { id: 1 } };
    await fuzz(
      "batch",
      mutated({ records: [record] }, ["records"], {
        records: fc.array(
          fc.oneof(
            nastyValue,
            mutated(record, Object.keys(record)).map((b) => (b.kind === "json" ? b.value : b.text)),
          ),
          { maxLength: 5 },
        ),
      }).map((body) => ({
        handler: batchRoute,
        method: "POST",
        path: "/api/v1/reviews/batch",
        token: tokens.consumer!,
        body,
      })),
    );
  });

  it("POST /api/v1/reviews/{id}/actions", async () => {
    const base = {
      action: "note",
      expectedVersion: CURRENT,
      reason: "fuzz",
      checkDone: true,
      payload: { schema: "2021-03", invoiceId: "1" },
      providerRef: "ref-1",
    };
    const actions = fc.constantFrom(
      "note",
      "replay",
      "correct-and-replay",
      "cancel",
      "confirm-applied",
      "confirm-not-applied",
      "skip-gap",
    );
    const categories = fc.constantFrom(
      ["manual-review", "invalid-payload"],
      ["effect-result-unknown", "effect-result-unknown"],
      ["sequence-gap", "sequence-gap"],
    );
    // Mostly a fresh record of a random category, so that the actions get past the version and
    // state checks to the writes; sometimes an id that names no record, or no UUID at all.
    const target = fc.oneof(
      { weight: 5, arbitrary: categories.map((category) => ({ fresh: category })) },
      { weight: 1, arbitrary: fc.oneof(fc.uuid(), nastyString).map((id) => ({ id })) },
    );
    await fuzz(
      "actions",
      fc
        .tuple(
          target,
          actions,
          mutated(base, Object.keys(base), {
            payload: fc.dictionary(fc.oneof(nastyString, fc.constantFrom("schema", "invoiceId")), nastyValue),
            envelope: fc.dictionary(
              fc.constantFrom("id", "kind", "effectKey", "sequenceKey", "sequence", "x"),
              nastyValue,
            ),
            runAt: nastyString,
            providerRef: nastyString,
            reason: nastyString,
          }),
        )
        .map(([where, action, body]): Case => {
          const value = body.kind === "json" ? body.value : null;
          const withAction =
            value &&
            typeof value === "object" &&
            !Array.isArray(value) &&
            (value as { action?: unknown }).action === "note"
              ? { kind: "json" as const, value: { ...(value as object), action } }
              : body;
          const at = (id: string): Case => ({
            handler: actionsRoute,
            method: "POST",
            path: `/api/v1/reviews/${segment(id)}/actions`,
            token: tokens.owner!,
            params: { id },
            body: withCurrentVersion(withAction, 1),
          });
          if ("id" in where) return at(where.id);
          return {
            ...at("(fresh)"),
            prepare: async () => {
              const id = await report(where.fresh[0]!, where.fresh[1]!, 3);
              return { ...at(id), body: withCurrentVersion(withAction, 1) };
            },
          };
        }),
    );
  });

  it("POST /api/v1/operations", async () => {
    const base = {
      action: "note",
      reason: "fuzz",
      selection: { type: "filter", filter: { kind: KIND } },
      ratePerSecond: 5,
      canarySize: 0,
      autoPause: { threshold: 0.5 },
    };
    const selection = fc.oneof(
      nastyValue,
      fc.record({
        type: fc.constantFrom("ids", "filter", "group"),
        ids: fc.array(fc.oneof(fc.uuid(), nastyString), { maxLength: 3 }),
      }),
      fc.record({
        type: fc.constant("filter"),
        filter: fc.dictionary(fc.constantFrom("kind", "reason", "status", "q", "ready", "x"), nastyValue),
      }),
      fc.record({
        type: fc.constant("group"),
        group: fc.record({ kind: nastyValue, reason: nastyValue, errorClass: nastyValue }),
      }),
    );
    await fuzz(
      "operations create",
      mutated(base, Object.keys(base), {
        selection,
        runAt: nastyString,
        action: fc.constantFrom("replay", "cancel", "note", "x"),
      }).map((body) => ({
        handler: operationsCreate,
        method: "POST",
        path: "/api/v1/operations",
        token: tokens.owner!,
        body,
      })),
    );
  });

  it("POST /api/v1/operations/{id}/dry-run|confirm|pause|resume|abort", async () => {
    const controls = [
      [dryRunRoute, "dry-run", {}],
      [confirmRoute, "confirm", { expectedVersion: CURRENT, dryRunAt: "$dry-run-at", checkDone: true }],
      [pauseRoute, "pause", { reason: "fuzz" }],
      [resumeRoute, "resume", { reason: "fuzz", autoPause: { threshold: 0.5 } }],
      [abortRoute, "abort", { reason: "fuzz" }],
    ] as const;
    const control = fc.constantFrom(...controls);
    // A fresh operation for most cases (planned, dry-run, or running), else ids naming none.
    const target = fc.oneof(
      { weight: 5, arbitrary: fc.constantFrom("planned", "dry-run", "running").map((state) => ({ fresh: state })) },
      { weight: 1, arbitrary: fc.oneof(fc.constant(operationId), fc.uuid(), nastyString).map((id) => ({ id })) },
    );
    await fuzz(
      "operation controls",
      fc
        .tuple(control, target)
        .chain(([chosen, where]) =>
          mutated(chosen[2], [...Object.keys(chosen[2]), "reason"]).map((body) => ({ chosen, where, body })),
        )
        .map(({ chosen: [handler, name], where, body }): Case => {
          const at = (id: string, fill: (b: Body | undefined) => Body | undefined = (b) => b): Case => ({
            handler,
            method: "POST",
            path: `/api/v1/operations/${segment(id)}/${name}`,
            token: tokens.owner!,
            params: { operationId: id },
            body: fill(body),
          });
          if ("id" in where) return at(where.id, (b) => withCurrentVersion(b, 1));
          return {
            ...at("(fresh)"),
            prepare: async () => {
              const { id, version, dryRunAt } = await freshOperation(where.fresh);
              return at(id, (b) => {
                const filled = withCurrentVersion(b, version);
                if (filled?.kind !== "json") return filled;
                return {
                  kind: "json",
                  value: JSON.parse(
                    JSON.stringify(filled.value).replace(
                      '"$dry-run-at"',
                      JSON.stringify(dryRunAt ?? "2026-01-01T00:00:00Z"),
                    ),
                  ),
                };
              });
            },
          };
        }),
    );
  });

  it("PUT /api/v1/operations/auto-replay/{kind}", async () => {
    await fuzz(
      "auto-replay",
      fc
        .tuple(
          fc.oneof(fc.constant(KIND), nastyString),
          mutated({ enabled: false, reason: "fuzz" }, ["enabled", "reason"]),
        )
        .map(([kind, body]) => ({
          handler: autoReplayRoute,
          method: "PUT",
          path: "/api/v1/operations/auto-replay/x",
          token: tokens.owner!,
          params: { kind },
          body,
        })),
    );
  });

  it("POST /api/v1/replays/claim and /api/v1/replays/{id}/outcome", async () => {
    const claim = mutated({ consumer: "fuzz-other", kinds: [`${KIND}.none`], limit: 1, leaseSeconds: 30 }, [
      "consumer",
      "kinds",
      "limit",
      "leaseSeconds",
    ]).map((body) => ({
      handler: claimRoute,
      method: "POST",
      path: "/api/v1/replays/claim",
      token: tokens.consumer!,
      body,
    }));
    const outcomeBase = { outcome: "failed", detail: "d", reason: "r", requiredCheck: "c" };
    const outcome = fc
      .tuple(fc.oneof(fc.constant(replayId), fc.uuid(), nastyString), mutated(outcomeBase, Object.keys(outcomeBase)))
      .map(([id, body]) => ({
        handler: outcomeRoute,
        method: "POST",
        path: `/api/v1/replays/${segment(id)}/outcome`,
        token: tokens.consumer!,
        params: { replayId: id },
        body,
      }));
    await fuzz("replays", fc.oneof(claim, outcome));
  });

  it("GET query-string routes: list, stats, groups, audit, audit export, operations list, items, log, record", async () => {
    const reviewKeys = [
      "status",
      "category",
      "reason",
      "kind",
      "sequenceKey",
      "effectKey",
      "messageId",
      "errorClass",
      "ready",
      "q",
      "cursor",
      "limit",
    ];
    const auditKeys = ["actor", "action", "reviewId", "operationId", "effectKey", "from", "to", "cursor", "limit"];
    const get = (handler: Handler, path: string, keys: string[], token: string, params?: Record<string, string>) =>
      query(keys).map((q) => ({ handler, method: "GET", path: `${path}?${q}`, token, params }));
    const opId = fc.oneof(fc.constant(operationId), fc.uuid(), nastyString);
    await fuzz(
      "queries",
      fc.oneof(
        get(listRoute, "/api/v1/reviews", reviewKeys, tokens.auditor!),
        get(statsRoute, "/api/v1/reviews/stats", ["x"], tokens.auditor!),
        get(groupsRoute, "/api/v1/reviews/groups", ["status", "category", "kind", "reason"], tokens.auditor!),
        get(auditList, "/api/v1/audit", auditKeys, tokens.auditor!),
        get(auditExport, "/api/v1/audit/export", [...auditKeys, "format"], tokens.auditor!),
        get(operationsList, "/api/v1/operations", ["state", "cursor", "limit"], tokens.auditor!),
        fc.tuple(opId, query(["state", "verdict", "cursor", "limit"])).map(([id, q]) => ({
          handler: itemsRoute,
          method: "GET",
          path: `/api/v1/operations/${segment(id)}/items?${q}`,
          token: tokens.auditor!,
          params: { operationId: id },
        })),
        fc.tuple(opId, query(["cursor", "limit"])).map(([id, q]) => ({
          handler: logRoute,
          method: "GET",
          path: `/api/v1/operations/${segment(id)}/log?${q}`,
          token: tokens.auditor!,
          params: { operationId: id },
        })),
        anyId().map((id) => ({
          handler: detailRoute,
          method: "GET",
          path: `/api/v1/reviews/${segment(id)}`,
          token: tokens.auditor!,
          params: { id },
        })),
      ),
    );
  });
});
