import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { POST as batch } from "@/app/api/v1/reviews/batch/route";
import { GET as detail } from "@/app/api/v1/reviews/[id]/route";
import { GET as list, POST as report } from "@/app/api/v1/reviews/route";
import { GET as stats } from "@/app/api/v1/reviews/stats/route";
import { call, tokenFor } from "../support/http";
import { setupTestDatabase, withClient } from "../support/database";

// docs/api.md: "every 4xx answer is {error: {code, message, issues?}} and changes nothing". Each test
// here sends one kind of bad input and proves both halves: the answer's shape and that no
// review table and no `review.*` decision-log entry moved.

const database = setupTestDatabase();

type Handler = Parameters<typeof call>[0];
type Answer = { status: number; body: any };

const MiB = 1024 * 1024;

/** A suffix that keeps every test's data apart, so the tests can run in any order. */
const unique = () => `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;

function envelope(overrides: Record<string, unknown> = {}) {
  const tag = unique();
  return {
    id: `msg-bad-${tag}`,
    kind: "invoice.reminder",
    effectKey: `invoice-${tag}:reminder`,
    sequenceKey: `invoice-${tag}`,
    sequence: 4,
    payload: { invoiceId: tag, schema: "2021-03" },
    ...overrides,
  };
}

function validReport(overrides: Record<string, unknown> = {}) {
  return {
    category: "sequence-gap",
    reason: "sequence-gap",
    requiredCheck: "find messages 1–3 of the invoice",
    attempts: 1,
    source: { transport: "redis-streams", queue: "invoices", consumer: "worker-1", transportId: "1700000000000-0" },
    message: envelope(),
    ...overrides,
  };
}

/** A valid report without one of its fields (a spread cannot remove a key). */
function without(field: string, body: Record<string, unknown> = validReport()) {
  const copy = { ...body };
  delete copy[field];
  return copy;
}

interface Counts {
  records: number;
  history: number;
  revisions: number;
  reviewLog: number;
  allLog: number;
}

async function counts(): Promise<Counts> {
  return withClient(database.current.url, async (c) => {
    const { rows } = await c.query(`SELECT
      (SELECT count(*) FROM review_records)::int AS records,
      (SELECT count(*) FROM review_history)::int AS history,
      (SELECT count(*) FROM review_revisions)::int AS revisions,
      (SELECT count(*) FROM decision_log WHERE action LIKE 'review.%')::int AS "reviewLog",
      (SELECT count(*) FROM decision_log)::int AS "allLog"`);
    return rows[0] as Counts;
  });
}

/** Runs `send` and asserts that it wrote nothing at all: no review row, no log entry of any kind. */
async function expectNothingWritten<T>(send: () => Promise<T>): Promise<T> {
  const before = await counts();
  const result = await send();
  expect(await counts()).toEqual(before);
  return result;
}

/** Like expectNothingWritten, but a refused authorization may append its own log entries. */
async function expectNoReviewWrites<T>(send: () => Promise<T>): Promise<{ result: T; newLogEntries: number }> {
  const before = await counts();
  const result = await send();
  const after = await counts();
  expect({ ...after, allLog: 0 }).toEqual({ ...before, allLog: 0 });
  return { result, newLogEntries: after.allLog - before.allLog };
}

/** The one error shape of docs/api.md; `issues`, when present, is a list of {path, message}. */
function expectRefusal(answer: Answer, status: number, code: string): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(Object.keys(answer.body ?? {})).toEqual(["error"]);
  const { error } = answer.body;
  expect(error.code).toBe(code);
  expect(typeof error.message).toBe("string");
  expect(error.message.length).toBeGreaterThan(0);
  expect(Object.keys(error).every((k) => ["code", "message", "issues"].includes(k))).toBe(true);
  if (error.issues !== undefined) {
    expect(error.issues.length).toBeGreaterThan(0);
    for (const issue of error.issues) {
      expect(issue).toEqual({ path: expect.any(String), message: expect.any(String) });
    }
  }
}

/**
 * A 400 for one field: the message and the first issue's path both name it. An element of a
 * comma list may be named by its position (`status.1`), which still names the parameter.
 */
function expectFieldRefusal(answer: Answer, field: string): void {
  expectRefusal(answer, 400, "invalid-request");
  const first: string = answer.body.error.issues[0].path;
  expect(first === field || first.startsWith(`${field}.`), `issue path ${first}`).toBe(true);
  expect(answer.body.error.message.startsWith(`${first}:`)).toBe(true);
}

/** Sends a Request built here, for what `call` cannot express (streams, no Content-Type). */
async function send(handler: Handler, path: string, init: RequestInit): Promise<Answer> {
  const response = await handler(new Request(`http://localhost${path}`, init), { params: Promise.resolve({}) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

/** A JSON report padded to exactly `bytes` bytes (ASCII only, so characters are bytes). */
function reportOfSize(bytes: number): string {
  const shell = JSON.stringify(validReport({ message: envelope({ padding: "" }) }));
  const missing = bytes - Buffer.byteLength(shell);
  if (missing < 0) throw new Error("the report alone is larger than asked");
  return shell.replace('"padding":""', `"padding":"${"x".repeat(missing)}"`);
}

/**
 * A body that arrives in chunks with no Content-Length, the way a chunked upload does; `pulled`
 * tells how much of it the server read before giving up.
 */
function streamedBody(totalBytes: number, chunkBytes = 64 * 1024) {
  const state = { pulled: 0 };
  const chunk = new TextEncoder().encode("x".repeat(chunkBytes));
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (state.pulled >= totalBytes) return controller.close();
      state.pulled += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  return { stream, state };
}

async function refusedDecisions(actorLabel: string) {
  return withClient(database.current.url, async (c) => {
    const { rows } = await c.query(
      `SELECT actor, actor_role, action, review_id, details FROM decision_log WHERE actor = $1 ORDER BY seq`,
      [actorLabel],
    );
    return rows;
  });
}

describe("POST /api/v1/reviews: the body", () => {
  it("invalid JSON is a 400 invalid-json, and writes nothing", async () => {
    const token = await tokenFor("consumer");
    for (const rawBody of ["{", '{"category": "manual-review",}', "", "undefined", "{'a': 1}", "[1, 2"]) {
      const answer = await expectNothingWritten(() => call(report, { token, rawBody }));
      expectRefusal(answer, 400, "invalid-json");
    }
  });

  // Each case is a valid report with one field broken; the answer must name that field.
  const fieldCases: [string, string, () => unknown][] = [
    ["attempts as a string", "attempts", () => validReport({ attempts: "3" })],
    ["attempts negative", "attempts", () => validReport({ attempts: -1 })],
    ["attempts fractional", "attempts", () => validReport({ attempts: 1.5 })],
    ["category not in the enum", "category", () => validReport({ category: "lost-forever" })],
    ["category missing", "category", () => without("category")],
    ["reason empty", "reason", () => validReport({ reason: "" })],
    ["reason only spaces", "reason", () => validReport({ reason: "   " })],
    ["reason with a NUL character", "reason", () => validReport({ reason: "gap\u0000here" })],
    ["reason as a number", "reason", () => validReport({ reason: 7 })],
    ["requiredCheck missing", "requiredCheck", () => without("requiredCheck")],
    ["message missing", "message", () => without("message")],
    ["lastError as an object", "lastError", () => validReport({ lastError: { text: "x" } })],
    ["source.transport missing", "source.transport", () => validReport({ source: { queue: "invoices" } })],
    ["source.queue with a NUL", "source.queue", () => validReport({ source: { transport: "amqp", queue: "a\u0000" } })],
    ["source as a string", "source", () => validReport({ source: "redis" })],
  ];

  it.each(fieldCases)("%s is a 400 naming the field, and writes nothing", async (_, field, body) => {
    const token = await tokenFor("consumer");
    const answer = await expectNothingWritten(() => call(report, { token, body: body() }));
    expectFieldRefusal(answer, field);
  });

  it("a body that is not an object (array, null, string) is a 400 invalid-request", async () => {
    const token = await tokenFor("consumer");
    for (const body of [[validReport()], null, "report", 42]) {
      const answer = await expectNothingWritten(() => call(report, { token, rawBody: JSON.stringify(body) }));
      expectRefusal(answer, 400, "invalid-request");
    }
  });

  it("a body over 1 MiB with an honest Content-Length is a 413, and writes nothing", async () => {
    const token = await tokenFor("consumer");
    const rawBody = reportOfSize(MiB + 1);
    const answer = await expectNothingWritten(() =>
      call(report, { token, rawBody, headers: { "content-length": String(Buffer.byteLength(rawBody)) } }),
    );
    expectRefusal(answer, 413, "body-too-large");
  });

  it("a body over 1 MiB whose Content-Length lies (says 100) is still a 413", async () => {
    const token = await tokenFor("consumer");
    const answer = await expectNothingWritten(() =>
      call(report, { token, rawBody: reportOfSize(MiB + 1), headers: { "content-length": "100" } }),
    );
    expectRefusal(answer, 413, "body-too-large");
  });

  it("a streamed body without Content-Length is cut off with a 413 soon after 1 MiB, not read to its end", async () => {
    const token = await tokenFor("consumer");
    const { stream, state } = streamedBody(20 * MiB);
    const answer = await expectNothingWritten(() =>
      send(report, "/api/v1/reviews", {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: stream,
        duplex: "half",
      } as RequestInit),
    );
    expectRefusal(answer, 413, "body-too-large");
    // Reading all 20 MiB before refusing would let any client make the server buffer anything.
    expect(state.pulled).toBeLessThan(2 * MiB);
  });

  it("a body of exactly 1 MiB is accepted (the limit is 1 MiB, not less)", async () => {
    const token = await tokenFor("consumer");
    const before = await counts();
    const answer = await call(report, { token, rawBody: reportOfSize(MiB) });
    expect(answer.status).toBe(201);
    expect((await counts()).records).toBe(before.records + 1);
  });

  it("a wrong or missing Content-Type is a 415, and writes nothing", async () => {
    const token = await tokenFor("consumer");
    const rawBody = JSON.stringify(validReport());
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/json-patch+json", "json"]) {
      const answer = await expectNothingWritten(() =>
        call(report, { token, rawBody, headers: { "content-type": type } }),
      );
      expectRefusal(answer, 415, "unsupported-media-type");
    }
    // `call` always adds a JSON Content-Type, so the missing header needs a hand-built request.
    const missing = await expectNothingWritten(() =>
      send(report, "/api/v1/reviews", {
        method: "POST",
        headers: { authorization: `Bearer ${token}` },
        body: new Blob([rawBody]).stream(),
        duplex: "half",
      } as RequestInit),
    );
    expectRefusal(missing, 415, "unsupported-media-type");
  });

  it("application/json with a charset parameter is accepted (the check is not an exact string match)", async () => {
    const token = await tokenFor("consumer");
    const answer = await call(report, {
      token,
      body: validReport(),
      headers: { "content-type": "application/json; charset=utf-8" },
    });
    expect(answer.status).toBe(201);
  });

  it("the batch endpoint refuses the same bad bodies the same way", async () => {
    const token = await tokenFor("consumer");
    expectRefusal(await expectNothingWritten(() => call(batch, { token, rawBody: "{" })), 400, "invalid-json");
    expectRefusal(
      await expectNothingWritten(() =>
        call(batch, { token, body: { records: [validReport()] }, headers: { "content-type": "text/plain" } }),
      ),
      415,
      "unsupported-media-type",
    );
    const big = JSON.stringify({ records: [JSON.parse(reportOfSize(MiB + 1))] });
    expectRefusal(await expectNothingWritten(() => call(batch, { token, rawBody: big })), 413, "body-too-large");
    expectFieldRefusal(
      await expectNothingWritten(() => call(batch, { token, body: { records: "all of them" } })),
      "records",
    );
  });
});

describe("POST /api/v1/reviews: messages the database or the validator cannot take as they are", () => {
  // Found by this file: a message id with a lone UTF-16 surrogate is a 500, and the record is
  // written anyway (the consumer sees a failure, retries, and bumps attempts each time).
  it("a message id containing a lone surrogate is answered (not a 500), and a refusal writes nothing", async () => {
    const token = await tokenFor("consumer");
    const before = await counts();
    const answer = await call(report, {
      token,
      body: validReport({ message: envelope({ id: `lone-\ud800-${unique()}` }) }),
    });
    const after = await counts();
    expect(answer.status, JSON.stringify(answer.body)).not.toBe(500);
    if (answer.status >= 400) {
      expectRefusal(answer, answer.status, answer.body.error.code);
      expect(after).toEqual(before);
    } else {
      expect(answer.status).toBe(201);
      expect(after.records).toBe(before.records + 1);
    }
  });

  // Found by this file: z.json() validates recursively and overflows the stack somewhere
  // between 1,000 and 2,000 levels; a 20 kB body should not be able to produce a 500.
  it("a deeply nested message (10,000 levels) is answered (not a 500), and a refusal writes nothing", async () => {
    const token = await tokenFor("consumer");
    const deep = `${"[".repeat(10_000)}${"]".repeat(10_000)}`;
    const rawBody = JSON.stringify(validReport({ message: "@@" })).replace('"@@"', deep);
    const before = await counts();
    const answer = await call(report, { token, rawBody });
    const after = await counts();
    expect(answer.status, JSON.stringify(answer.body)).not.toBe(500);
    if (answer.status >= 400) {
      expectRefusal(answer, answer.status, answer.body.error.code);
      expect(after).toEqual(before);
    }
  });
});

describe("authentication (401)", () => {
  const attempts: [string, Record<string, string>][] = [
    ["no Authorization header", {}],
    ["a Basic credential", { authorization: "Basic dXNlcjpwYXNz" }],
    ["Bearer without a token", { authorization: "Bearer " }],
    ["Bearer with two words", { authorization: "Bearer abc def" }],
    ["a token without the Bearer scheme", { authorization: "rct_abcdef" }],
    ["an unknown token", { authorization: `Bearer rct_${randomUUID()}` }],
  ];

  it.each(attempts)("%s is a 401 on read and write, and writes nothing", async (_, headers) => {
    const post = await expectNothingWritten(() => call(report, { body: validReport(), headers }));
    expectRefusal(post, 401, "unauthenticated");
    const get = await expectNothingWritten(() => call(list, { path: "/api/v1/reviews", headers }));
    expectRefusal(get, 401, "unauthenticated");
  });

  it("a revoked token is a 401", async () => {
    const token = await tokenFor("consumer");
    await withClient(database.current.url, (c) =>
      c.query("UPDATE api_tokens SET revoked_at = now() WHERE prefix = $1", [token.slice(0, 12)]),
    );
    expectRefusal(
      await expectNothingWritten(() => call(report, { token, body: validReport() })),
      401,
      "unauthenticated",
    );
  });

  it("authentication comes before the body: no token and invalid JSON is a 401, not a 400", async () => {
    expectRefusal(await expectNothingWritten(() => call(report, { rawBody: "{" })), 401, "unauthenticated");
  });
});

describe("authorization (403), itself written to the decision log", () => {
  it.each(["auditor", "owner", "support", "admin"] as const)(
    "an %s token POSTing a report is a 403 with exactly one authorization.refused entry naming it",
    async (role) => {
      const name = `${role}-${unique()}`;
      const token = await tokenFor(role, name);
      const { result, newLogEntries } = await expectNoReviewWrites(() =>
        call(report, { token, path: "/api/v1/reviews", body: validReport() }),
      );
      expectRefusal(result, 403, "forbidden");
      expect(newLogEntries).toBe(1);
      expect(await refusedDecisions(`token:${name}`)).toEqual([
        {
          actor: `token:${name}`,
          actor_role: role,
          action: "authorization.refused",
          review_id: null,
          details: expect.objectContaining({ method: "POST", path: "/api/v1/reviews", permission: "reviews.report" }),
        },
      ]);
    },
  );

  it("authorization comes before the body: an auditor sending invalid JSON gets a 403, not a 400", async () => {
    const token = await tokenFor("auditor");
    const { result, newLogEntries } = await expectNoReviewWrites(() => call(report, { token, rawBody: "{" }));
    expectRefusal(result, 403, "forbidden");
    expect(newLogEntries).toBe(1);
  });

  it("a consumer token reading the list, the stats or a record is a 403, each logged once", async () => {
    const name = `consumer-${unique()}`;
    const token = await tokenFor("consumer", name);
    const reads: [Handler, string, Record<string, string>][] = [
      [list, "/api/v1/reviews", {}],
      [stats, "/api/v1/reviews/stats", {}],
      [detail, `/api/v1/reviews/${randomUUID()}`, {}],
    ];
    for (const [handler, path] of reads) {
      const { result, newLogEntries } = await expectNoReviewWrites(() =>
        call(handler, { token, path, params: { id: path.split("/").pop()! } }),
      );
      expectRefusal(result, 403, "forbidden");
      expect(newLogEntries).toBe(1);
    }
    const logged = await refusedDecisions(`token:${name}`);
    expect(logged.map((e) => [e.action, e.actor_role, e.details.method, e.details.path])).toEqual(
      reads.map(([, path]) => ["authorization.refused", "consumer", "GET", path]),
    );
  });
});

describe("GET /api/v1/reviews/{id}: unknown ids", () => {
  it("a random UUID is a 404 not-found", async () => {
    const token = await tokenFor("auditor");
    const id = randomUUID();
    const answer = await expectNothingWritten(() => call(detail, { token, params: { id } }));
    expectRefusal(answer, 404, "not-found");
  });

  it("an id that is not a UUID is a 404, not a database error", async () => {
    const token = await tokenFor("auditor");
    for (const id of ["not-a-uuid", "1", "", "' OR 1=1 --", `${randomUUID()}x`, "..%2F..%2Fetc", "\u0000"]) {
      const answer = await expectNothingWritten(() => call(detail, { token, params: { id } }));
      expectRefusal(answer, 404, "not-found");
    }
  });
});

describe("GET /api/v1/reviews: query errors name the parameter", () => {
  const beyondBigint = Buffer.from("s:9999999999999999999").toString("base64url");
  const notOurs = Buffer.from("s:abc").toString("base64url");
  const cases: [string, string][] = [
    ["limit=0", "limit"],
    ["limit=501", "limit"],
    ["limit=abc", "limit"],
    ["limit=-1", "limit"],
    ["limit=2.5", "limit"],
    ["limit=", "limit"],
    ["cursor=garbage%21", "cursor"],
    ["cursor=garbage", "cursor"],
    [`cursor=${notOurs}`, "cursor"],
    [`cursor=${"A".repeat(101)}`, "cursor"],
    // Found by this file: a forged cursor whose number does not fit a bigint reaches the
    // database and comes back as a 500.
    [`cursor=${beyondBigint}`, "cursor"],
    ["status=bogus", "status"],
    ["status=open,bogus", "status"],
    ["category=lost", "category"],
    ["category=manual-review,lost", "category"],
    ["q=a", "q"],
    ["q=%20a%20", "q"],
    ["q=ab%00", "q"],
    ["reason=%20", "reason"],
  ];

  it.each(cases)("%s is a 400 naming %s", async (query, parameter) => {
    const token = await tokenFor("owner");
    const answer = await expectNothingWritten(() => call(list, { token, path: `/api/v1/reviews?${query}` }));
    expectFieldRefusal(answer, parameter);
  });

  it("the boundaries limit=1 and limit=500 are accepted", async () => {
    const token = await tokenFor("owner");
    for (const limit of [1, 500]) {
      const answer = await call(list, { token, path: `/api/v1/reviews?limit=${limit}` });
      expect(answer.status).toBe(200);
      expect(answer.body.items.length).toBeLessThanOrEqual(limit);
    }
  });
});

/** mulberry32: a tiny seeded PRNG, so a failing fuzz run can be repeated exactly. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("POST /api/v1/reviews: fuzzed bodies", () => {
  it("200 random or mutated bodies never produce a 500; refusals have the error shape and write nothing", async () => {
    const random = prng(0x5eed_2026);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const strings = [
      "",
      " ",
      "x",
      "manual-review",
      "sequence-gap",
      "\u0000",
      "\ud800",
      "é🙂",
      "<script>alert(1)</script>",
      "'; DROP TABLE review_records; --",
      "__proto__",
      "constructor",
      "%_\\",
      "y".repeat(3000),
    ];
    const numbers = [0, 1, -1, 1.5, 2 ** 31, 2 ** 53, -0, 1e308, Number.MIN_VALUE];
    const keys = ["id", "kind", "effectKey", "sequenceKey", "sequence", "payload", "schema", "a", "__proto__"];
    const value = (depth: number): unknown => {
      const roll = random();
      if (depth > 3 || roll < 0.15) return pick([null, true, false]);
      if (roll < 0.35) return pick(numbers);
      if (roll < 0.6) return pick(strings);
      if (roll < 0.8) return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: Math.floor(random() * 5) }, () => [pick(keys), value(depth + 1)]));
    };
    const fields = ["category", "reason", "requiredCheck", "attempts", "lastError", "source", "message"];
    const body = (): string => {
      if (random() < 0.25) return JSON.stringify(value(0)) ?? "null";
      const mutated: Record<string, unknown> = validReport();
      for (let i = 0, n = 1 + Math.floor(random() * 3); i < n; i++) {
        const field = pick(fields);
        const roll = random();
        if (roll < 0.3) delete mutated[field];
        else if (roll < 0.9) mutated[field] = value(1);
        else mutated[`extra-${i}`] = value(1);
      }
      // Stays within the valid categories often enough that many mutated reports get through.
      if (random() < 0.3) mutated.category = pick(["manual-review", "sequence-gap", "effect-result-unknown"]);
      return JSON.stringify(mutated);
    };

    const token = await tokenFor("consumer");
    const before = await counts();
    const failures: string[] = [];
    let created = 0;
    let accepted = 0;
    for (let i = 0; i < 200; i++) {
      const rawBody = body();
      const answer = await call(report, { token, rawBody });
      if (answer.status >= 500) failures.push(`#${i} ${answer.status}: ${rawBody.slice(0, 300)}`);
      else if (answer.status >= 400) expectRefusal(answer, answer.status, answer.body.error.code);
      else {
        expect([200, 201]).toContain(answer.status);
        accepted += 1;
        if (answer.status === 201) created += 1;
      }
    }
    expect(failures).toEqual([]);
    // The refusals wrote nothing: every row and log entry is accounted for by an accepted report.
    const after = await counts();
    expect(after.records - before.records).toBe(created);
    expect(after.history - before.history).toBe(accepted);
    expect(after.reviewLog - before.reviewLog).toBe(accepted);
    expect(after.revisions).toBe(before.revisions);
    // Both kinds of outcome occurred, or the generator is not exercising the endpoint.
    expect(accepted).toBeGreaterThan(10);
    expect(accepted).toBeLessThan(190);
  });
});
