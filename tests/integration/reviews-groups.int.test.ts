import { beforeAll, describe, expect, it } from "vitest";
import { POST as batch } from "@/app/api/v1/reviews/batch/route";
import { GET as groupsRoute } from "@/app/api/v1/reviews/groups/route";
import { GET as list, POST as report } from "@/app/api/v1/reviews/route";
import { call, tokenFor } from "../support/http";
import { setupTestDatabase, withClient } from "../support/database";

// The queue grouped by cause (kind + reason + error class) and the list filter that selects one
// group. Every test reports its own records under a unique kind and reads groups for that kind
// only, so its counts are absolute whatever the other tests added. Statuses and timestamps the
// API cannot set are adjusted with SQL.

const database = setupTestDatabase();

type Status = "open" | "replay-scheduled" | "replaying" | "resolved" | "cancelled";
type Category = "manual-review" | "sequence-gap" | "effect-result-unknown";

interface Spec {
  reason: string;
  lastError?: string;
  /** The client's own class; absent: derived from lastError. */
  errorClass?: string;
  status?: Status;
  category?: Category;
  /** Defaults to the test's kind; null reports a message without a kind. */
  kind?: string | null;
}

interface Seeded {
  id: string;
  kind: string | null;
  reason: string;
  status: Status;
  category: Category;
  lastError: string | null;
  /** As the database stored it (the rule itself is tested on its own, below). */
  errorClass: string | null;
}

interface Group {
  kind: string | null;
  reason: string;
  errorClass: string | null;
  count: number;
  oldestFirstSeenAt: string;
  newestLastSeenAt: string;
}

let consumer: string;
let reader: string;
beforeAll(async () => {
  consumer = await tokenFor("consumer");
  reader = await tokenFor("owner");
});

const newTag = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;

function reportFor(tag: string, spec: Spec, index: number) {
  const kind = spec.kind === undefined ? `kind-${tag}` : spec.kind;
  return {
    category: spec.category ?? "manual-review",
    reason: spec.reason,
    requiredCheck: `check ${tag} ${index}`,
    attempts: 1,
    ...(spec.lastError !== undefined ? { lastError: spec.lastError } : {}),
    ...(spec.errorClass !== undefined ? { errorClass: spec.errorClass } : {}),
    message: {
      id: `m-${tag}-${index}`,
      ...(kind === null ? {} : { kind }),
      effectKey: `eff-${tag}-${index}`,
      sequenceKey: `seq-${tag}-${index}`,
      sequence: 1,
      payload: { schema: "2021-03" },
    },
  };
}

async function seed(tag: string, specs: Spec[]): Promise<Seeded[]> {
  const answer = await call(batch, {
    token: consumer,
    path: "/api/v1/reviews/batch",
    body: { records: specs.map((spec, i) => reportFor(tag, spec, i)) },
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  expect(answer.body.recorded).toBe(specs.length);
  const seeded = specs.map((spec, i) => ({
    id: answer.body.results[i].id as string,
    kind: spec.kind === undefined ? `kind-${tag}` : spec.kind,
    reason: spec.reason,
    status: spec.status ?? "open",
    category: spec.category ?? "manual-review",
    lastError: spec.lastError ?? null,
    errorClass: null as string | null,
  }));
  const stored = await sql(`SELECT id::text, error_class FROM review_records WHERE id = ANY($1::uuid[])`, [
    seeded.map((s) => s.id),
  ]);
  const classes = new Map(stored.map((r) => [r.id as string, r.error_class as string | null]));
  for (const s of seeded) s.errorClass = classes.get(s.id) ?? null;
  const moved = seeded.filter((s) => s.status !== "open");
  if (moved.length > 0) {
    await sql(
      `UPDATE review_records r SET status = v.status::"ReviewStatus"
         FROM unnest($1::uuid[], $2::text[]) AS v(id, status) WHERE r.id = v.id`,
      [moved.map((r) => r.id), moved.map((r) => r.status)],
    );
  }
  return seeded;
}

async function sql(text: string, params: unknown[] = []) {
  return withClient(database.current.url, async (c) => (await c.query(text, params)).rows);
}

async function groups(query: Record<string, string>): Promise<Group[]> {
  const answer = await call(groupsRoute, {
    token: reader,
    path: `/api/v1/reviews/groups?${new URLSearchParams(query)}`,
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.groups;
}

/** Every list item for a query, following nextCursor. */
async function listAll(query: Record<string, string>) {
  const items: Record<string, any>[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const params = new URLSearchParams({ ...query, limit: "3" });
    if (cursor) params.set("cursor", cursor);
    const answer = await call(list, { token: reader, path: `/api/v1/reviews?${params}` });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    items.push(...answer.body.items);
    cursor = answer.body.nextCursor;
    if (!cursor) return items;
  }
  throw new Error("pagination does not end");
}

const ACTIVE: Status[] = ["open", "replay-scheduled", "replaying"];
const key = (g: { kind: string | null; reason: string; errorClass: string | null }) =>
  JSON.stringify([g.kind, g.reason, g.errorClass]);

describe("error_class, the class of a record's last error", () => {
  // [last error, class], by the rule of docs/api.md ("Error classes"), written out by hand.
  const CASES: [string | null, string | null][] = [
    // 1. An error code anywhere in the text.
    ["ETIMEDOUT after 30000 ms: POST https://mail.example/send", "ETIMEDOUT"],
    ["connect ECONNREFUSED 127.0.0.1:5432", "ECONNREFUSED"],
    ["getaddrinfo EAI_AGAIN api.example.com", "EAI_AGAIN"],
    ["  \n\tECONNRESET while reading", "ECONNRESET"],
    ["grpc: DEADLINE_EXCEEDED after 5s", "DEADLINE_EXCEEDED"],
    ["ERRORS were found in row 7", "ERRORS were found in row <n>"],
    // 2. An HTTP status, bare.
    ["422 recipient address rejected: mailbox does not exist", "422"],
    ["Request failed with status code 503", "503"],
    ["HTTP/1.1 502 Bad Gateway", "502"],
    ["upstream answered HTTP 429 after 2.5s", "429"],
    // 3. A leading name before a colon, generic words dropped.
    ["dependency-not-ready: ledger for invoice 901 not yet created", "dependency-not-ready"],
    ["provider.rate_limited-429: slow down", "provider.rate_limited-429"],
    ["Error: TypeError: Cannot read properties of undefined (reading 'id')", "TypeError"],
    // 4. The text, masked.
    ["worker billing-worker-2 stopped responding", "worker <id> stopped responding"],
    ["worker billing-worker-7 stopped responding", "worker <id> stopped responding"],
    ["invoice 2050 was already paid.", "invoice <n> was already paid"],
    ['Error: customer "Ada Lovelace" not found', 'customer "…" not found'],
    ["ERROR:   deadlock   detected", "deadlock detected"],
    ["mail to ada@example.com bounced", "mail to <email> bounced"],
    ["no route to https://api.example/v2/hooks", "no route to <url>"],
    ["user 3f2a1c9e-8b7d-4e6f-9a0b-1c2d3e4f5a6b has no account", "user <id> has no account"],
    ["socket hang up", "socket hang up"],
    ["ünknown failure", "ünknown failure"],
    [`${"x".repeat(80)} long`, "x".repeat(64)],
    [": odd text", "odd text"],
    ["(none)", null],
    ["", null],
    ["   ", null],
    [null, null],
  ];

  it("is derived from last_error by one rule, in the list and in the database", async () => {
    const tag = newTag();
    const seeded = await seed(
      tag,
      CASES.map(([lastError], i) => ({ reason: `rule-${tag}-${i}`, ...(lastError === null ? {} : { lastError }) })),
    );
    const items = await listAll({ kind: `kind-${tag}` });
    const byId = new Map(items.map((i) => [i.id, i]));
    const stored = new Map(
      (
        await sql(`SELECT id::text, error_class FROM review_records WHERE id = ANY($1::uuid[])`, [
          seeded.map((s) => s.id),
        ])
      ).map((r) => [r.id, r.error_class]),
    );
    CASES.forEach(([lastError, errorClass], i) => {
      const id = seeded[i]!.id;
      expect(stored.get(id), `error_class of ${JSON.stringify(lastError)}`).toBe(errorClass);
      expect(byId.get(id)).toMatchObject({ errorClass, lastError });
    });
  });

  it("puts one cause in one group: errors that differ only in ids, numbers and quoted values", async () => {
    const tag = newTag();
    await seed(tag, [
      { reason: `same-${tag}`, lastError: "worker billing-worker-2 stopped responding" },
      { reason: `same-${tag}`, lastError: "worker billing-worker-11 stopped responding" },
      { reason: `same-${tag}`, lastError: "connect ECONNREFUSED 10.0.0.7:443" },
      { reason: `same-${tag}`, lastError: "ECONNREFUSED: connection refused by 10.0.0.8" },
    ]);
    const got = await groups({ kind: `kind-${tag}` });
    expect(got.map((g) => [g.errorClass, g.count])).toEqual([
      ["ECONNREFUSED", 2],
      ["worker <id> stopped responding", 2],
    ]);
  });

  it("follows the last error when a repeated report changes it, and keeps it when a report has none", async () => {
    const tag = newTag();
    const first = reportFor(tag, { reason: `again-${tag}`, lastError: "ETIMEDOUT first" }, 0);
    const created = await call(report, { token: consumer, body: first });
    expect(created.status).toBe(201);
    const classOf = async () =>
      (await sql(`SELECT error_class FROM review_records WHERE id = $1`, [created.body.id]))[0].error_class;
    expect(await classOf()).toBe("ETIMEDOUT");

    const again = await call(report, { token: consumer, body: { ...first, lastError: "503 upstream unavailable" } });
    expect([again.status, again.body.id]).toEqual([200, created.body.id]);
    expect(await classOf()).toBe("503");

    const withoutError: Partial<typeof first> = { ...first };
    delete withoutError.lastError;
    expect((await call(report, { token: consumer, body: withoutError })).status).toBe(200);
    expect(await classOf()).toBe("503");
  });

  it("is the client's own errorClass when the report sends one, in place of the derived one", async () => {
    const tag = newTag();
    const first = {
      ...reportFor(tag, { reason: `own-${tag}`, lastError: "card 4242 declined" }, 0),
      errorClass: "card_declined",
    };
    const created = await call(report, { token: consumer, body: first });
    expect(created.status).toBe(201);
    const classOf = async () =>
      (await sql(`SELECT error_class FROM review_records WHERE id = $1`, [created.body.id]))[0].error_class;
    expect(await classOf()).toBe("card_declined");
    const [item] = await listAll({ kind: `kind-${tag}` });
    expect(item).toMatchObject({ errorClass: "card_declined", lastError: "card 4242 declined" });

    // A later report with an error and no class of its own is classed by the rule.
    await call(report, { token: consumer, body: { ...first, errorClass: undefined, lastError: "card 4243 declined" } });
    expect(await classOf()).toBe("card <n> declined");
    // A class without an error replaces the class and keeps the error.
    const classOnly: Partial<typeof first> = { ...first, errorClass: "issuer_unavailable" };
    delete classOnly.lastError;
    await call(report, { token: consumer, body: classOnly });
    expect(await classOf()).toBe("issuer_unavailable");
    expect((await sql(`SELECT last_error FROM review_records WHERE id = $1`, [created.body.id]))[0].last_error).toBe(
      "card 4243 declined",
    );
  });

  it("refuses an errorClass that is empty, too long, more than one line or the sentinel, naming it, and records nothing", async () => {
    const tag = newTag();
    const bad = ["", "   ", "x".repeat(65), "two\nlines", "(none)", 42];
    for (const [i, errorClass] of bad.entries()) {
      const body = { ...reportFor(tag, { reason: `bad-${tag}` }, i), errorClass };
      const answer = await call(report, { token: consumer, body });
      expect(answer.status, JSON.stringify(errorClass)).toBe(400);
      expect(answer.body.error.issues[0].path).toBe("errorClass");
    }
    const inBatch = await call(batch, {
      token: consumer,
      path: "/api/v1/reviews/batch",
      body: { records: [{ ...reportFor(tag, { reason: `bad-${tag}` }, 9), errorClass: "(none)" }] },
    });
    expect(inBatch.body.results[0]).toMatchObject({ status: 400 });
    expect(inBatch.body.results[0].error.issues[0].path).toBe("records.0.errorClass");
    expect(await sql(`SELECT id FROM review_records WHERE kind = $1`, [`kind-${tag}`])).toEqual([]);
  });
});

describe("GET /api/v1/reviews/groups", () => {
  /** Three causes of one reason, one of another, nulls, and finished records that must not count. */
  function mixedSpecs(tag: string): Spec[] {
    return [
      { reason: `retry-limit-${tag}`, lastError: "ETIMEDOUT after 30000 ms" },
      { reason: `retry-limit-${tag}`, lastError: "ETIMEDOUT after 10000 ms", status: "replay-scheduled" },
      { reason: `retry-limit-${tag}`, lastError: "ETIMEDOUT again", status: "replaying" },
      { reason: `retry-limit-${tag}`, lastError: "ETIMEDOUT but resolved", status: "resolved" },
      { reason: `retry-limit-${tag}`, lastError: "dependency-not-ready: ledger 1" },
      { reason: `retry-limit-${tag}`, lastError: "dependency-not-ready: ledger 2", status: "cancelled" },
      { reason: `retry-limit-${tag}`, lastError: "dependency-not-ready: ledger 3" },
      { reason: `retry-limit-${tag}` },
      { reason: `retry-limit-${tag}`, lastError: "::" },
      {
        reason: `provider-rejected-${tag}`,
        lastError: "422 mailbox does not exist",
        category: "effect-result-unknown",
      },
      { reason: `provider-rejected-${tag}`, lastError: "422 recipient rejected", status: "resolved" },
    ];
  }

  /** The groups the seeded records make, computed here from the specs. */
  function expectedGroups(seeded: Seeded[], statuses: Status[]) {
    const counts = new Map<string, { kind: string | null; reason: string; errorClass: string | null; count: number }>();
    for (const s of seeded.filter((r) => statuses.includes(r.status))) {
      const g = { kind: s.kind, reason: s.reason, errorClass: s.errorClass };
      const entry = counts.get(key(g)) ?? { ...g, count: 0 };
      entry.count += 1;
      counts.set(key(g), entry);
    }
    return [...counts.values()];
  }

  it("counts the active records per kind, reason and error class, largest group first", async () => {
    const tag = newTag();
    const seeded = await seed(tag, mixedSpecs(tag));
    const got = await groups({ kind: `kind-${tag}` });
    expect(got.map((g) => ({ kind: g.kind, reason: g.reason, errorClass: g.errorClass, count: g.count }))).toEqual([
      { kind: `kind-${tag}`, reason: `retry-limit-${tag}`, errorClass: "ETIMEDOUT", count: 3 },
      { kind: `kind-${tag}`, reason: `retry-limit-${tag}`, errorClass: "dependency-not-ready", count: 2 },
      { kind: `kind-${tag}`, reason: `retry-limit-${tag}`, errorClass: null, count: 2 },
      { kind: `kind-${tag}`, reason: `provider-rejected-${tag}`, errorClass: "422", count: 1 },
    ]);
    // The same numbers, computed from the specs rather than written out.
    expect([...got].map((g) => [key(g), g.count]).sort()).toEqual(
      expectedGroups(seeded, ACTIVE)
        .map((g) => [key(g), g.count])
        .sort(),
    );
  });

  it("agrees with the database for every group of the whole table", async () => {
    const tag = newTag();
    await seed(tag, mixedSpecs(tag));
    const got = await groups({});
    const rows = await sql(
      `SELECT kind, reason, error_class AS "errorClass", count(*)::int AS count
         FROM review_records WHERE status IN ('open', 'replay-scheduled', 'replaying')
        GROUP BY 1, 2, 3`,
    );
    expect(got.length).toBeLessThanOrEqual(200);
    if (rows.length <= 200) {
      expect(got.map((g) => [key(g), g.count]).sort()).toEqual(rows.map((r) => [key(r), r.count]).sort());
    }
    const counts = got.map((g) => g.count);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
  });

  it("reports the oldest first sighting exactly, from the records still in the group", async () => {
    const tag = newTag();
    const seeded = await seed(tag, [
      { reason: `times-${tag}`, lastError: "ETIMEDOUT a" },
      { reason: `times-${tag}`, lastError: "ETIMEDOUT b" },
      { reason: `times-${tag}`, lastError: "ETIMEDOUT c", status: "resolved" },
    ]);
    await sql(
      `UPDATE review_records SET first_seen_at = v.first::timestamptz
         FROM unnest($1::uuid[], $2::text[]) AS v(id, first) WHERE review_records.id = v.id`,
      [seeded.map((s) => s.id), ["2026-01-05T00:00:00.000Z", "2026-01-02T00:00:00.000Z", "2025-01-01T00:00:00.000Z"]],
    );
    // The resolved record is not active: its older first sighting does not count.
    expect(await groups({ kind: `kind-${tag}` })).toEqual([
      expect.objectContaining({ reason: `times-${tag}`, count: 2, oldestFirstSeenAt: "2026-01-02T00:00:00.000Z" }),
    ]);
    // The oldest leaves the group: the next one is the oldest, at once (no fold needed).
    await sql(`UPDATE review_records SET status = 'cancelled' WHERE id = $1`, [seeded[1]!.id]);
    expect(await groups({ kind: `kind-${tag}` })).toEqual([
      expect.objectContaining({ count: 1, oldestFirstSeenAt: "2026-01-05T00:00:00.000Z" }),
    ]);
    // A group without a kind or an error class (NULL in the index's coalesce) is found as well.
    const nulls = await seed(`${tag}n`, [{ reason: `nulls-${tag}`, kind: null }]);
    await sql(`UPDATE review_records SET first_seen_at = '2024-06-01T00:00:00Z' WHERE id = $1`, [nulls[0]!.id]);
    expect(await groups({ reason: `nulls-${tag}` })).toEqual([
      expect.objectContaining({
        kind: null,
        errorClass: null,
        count: 1,
        oldestFirstSeenAt: "2024-06-01T00:00:00.000Z",
      }),
    ]);
  });

  it("counts the records of a group a replay fits now: open, and not effect-result-unknown", async () => {
    const tag = newTag();
    await seed(tag, [
      { reason: `unknown-${tag}`, category: "effect-result-unknown", lastError: "E1" },
      { reason: `unknown-${tag}`, category: "effect-result-unknown", lastError: "E1" },
      { reason: `mixed-${tag}`, lastError: "E2" },
      { reason: `mixed-${tag}`, lastError: "E2", status: "replay-scheduled" },
      { reason: `mixed-${tag}`, category: "sequence-gap", lastError: "E2" },
    ]);
    const got = await groups({ kind: `kind-${tag}` });
    expect(got.map((g) => [g.reason, g.count, (g as Group & { replayable: number }).replayable])).toEqual([
      [`mixed-${tag}`, 3, 2],
      [`unknown-${tag}`, 2, 0],
    ]);
  });

  it("reports the latest sighting in the group as newestLastSeenAt, and labels it an estimate", async () => {
    const tag = newTag();
    const seeded = await seed(tag, [
      { reason: `seen-${tag}`, lastError: "E1" },
      { reason: `seen-${tag}`, lastError: "E1" },
    ]);
    const lastSeen = async () =>
      (
        await sql(`SELECT max(last_seen_at) AS t FROM review_records WHERE id = ANY($1::uuid[])`, [
          seeded.map((s) => s.id),
        ])
      )[0].t as Date;
    const answer = await call(groupsRoute, { token: reader, path: `/api/v1/reviews/groups?kind=kind-${tag}` });
    expect(answer.body.estimates).toEqual(["newestLastSeenAt"]);
    expect(answer.body.groups[0].newestLastSeenAt).toBe((await lastSeen()).toISOString());
    // A repeated report moves it (the count stays).
    await new Promise((resolve) => setTimeout(resolve, 20));
    await call(batch, {
      token: consumer,
      path: "/api/v1/reviews/batch",
      body: { records: [reportFor(tag, { reason: `seen-${tag}`, lastError: "E1" }, 1)] },
    });
    const moved = (await groups({ kind: `kind-${tag}` }))[0]!;
    expect(moved.count).toBe(2);
    expect(moved.newestLastSeenAt).toBe((await lastSeen()).toISOString());
    // The estimate: once the record seen last leaves, the group keeps its sighting (an upper bound
    // of the records still in it), never earlier than theirs.
    await sql(`UPDATE review_records SET status = 'resolved' WHERE id = $1`, [seeded[1]!.id]);
    const after = (await groups({ kind: `kind-${tag}` }))[0]!;
    expect(after.count).toBe(1);
    expect(after.newestLastSeenAt).toBe(moved.newestLastSeenAt);
  });

  it("filters by status, category, kind and reason", async () => {
    const tag = newTag();
    const seeded = await seed(tag, mixedSpecs(tag));
    const statusCases: Status[][] = [["resolved"], ["open"], ["resolved", "cancelled"], ACTIVE];
    for (const statuses of statusCases) {
      const got = await groups({ kind: `kind-${tag}`, status: statuses.join(",") });
      expect(got.map((g) => [key(g), g.count]).sort(), statuses.join(",")).toEqual(
        expectedGroups(seeded, statuses)
          .map((g) => [key(g), g.count])
          .sort(),
      );
    }
    expect(
      (await groups({ kind: `kind-${tag}`, category: "effect-result-unknown" })).map((g) => [g.errorClass, g.count]),
    ).toEqual([["422", 1]]);
    expect(
      (await groups({ kind: `kind-${tag}`, reason: `provider-rejected-${tag}`, status: "resolved" })).map((g) => [
        g.errorClass,
        g.count,
      ]),
    ).toEqual([["422", 1]]);
    expect(await groups({ kind: `no-such-kind-${tag}` })).toEqual([]);
  });

  it("returns at most 200 groups and says when it left some out", async () => {
    const tag = newTag();
    await seed(
      tag,
      Array.from({ length: 203 }, (_, i) => ({ reason: `many-${tag}-${String(i).padStart(3, "0")}`, lastError: "E1" })),
    );
    // Three more records in one group make it the largest: it must come first.
    await seed(
      `${tag}b`,
      [0, 1, 2].map(() => ({ reason: `many-${tag}-100`, lastError: "E1", kind: `kind-${tag}` })),
    );
    const answer = await call(groupsRoute, { token: reader, path: `/api/v1/reviews/groups?kind=kind-${tag}` });
    expect(answer.status).toBe(200);
    expect(answer.body.groups).toHaveLength(200);
    expect(answer.body.truncated).toBe(true);
    expect(answer.body.groups[0]).toMatchObject({ reason: `many-${tag}-100`, count: 4 });
    // Ties in order of the key: stable between refreshes.
    expect(answer.body.groups[1].reason).toBe(`many-${tag}-000`);
    const small = await call(groupsRoute, {
      token: reader,
      path: `/api/v1/reviews/groups?kind=kind-${tag}&reason=many-${tag}-007`,
    });
    expect(small.body).toEqual({
      groups: [expect.objectContaining({ count: 1 })],
      truncated: false,
      estimates: ["newestLastSeenAt"],
    });
  });

  it("answers 400 naming the bad filter, 401 without a token and 403 to a consumer", async () => {
    for (const [query, field] of [
      ["status=open,closed", "status"],
      ["category=unknown", "category"],
      ["kind=", "kind"],
    ]) {
      const answer = await call(groupsRoute, { token: reader, path: `/api/v1/reviews/groups?${query}` });
      expect(answer.status, query).toBe(400);
      // A list's bad element is named with its index (`status.1`), as the list itself does.
      expect(answer.body.error.issues[0].path, query).toMatch(new RegExp(`^${field}(\\.\\d+)?$`));
      expect(answer.body.error.message.startsWith(field), answer.body.error.message).toBe(true);
    }
    expect((await call(groupsRoute, { path: "/api/v1/reviews/groups" })).status).toBe(401);
    expect((await call(groupsRoute, { token: consumer, path: "/api/v1/reviews/groups" })).status).toBe(403);
    for (const role of ["auditor", "support", "admin"] as const) {
      const token = await tokenFor(role);
      expect((await call(groupsRoute, { token, path: "/api/v1/reviews/groups" })).status, role).toBe(200);
    }
  });
});

describe("selecting a group: GET /api/v1/reviews?kind=&reason=&errorClass=", () => {
  it("returns exactly the records of each group, as many as it counts", async () => {
    const tag = newTag();
    const seeded = await seed(tag, [
      { reason: `sel-${tag}`, lastError: "ETIMEDOUT 1" },
      { reason: `sel-${tag}`, lastError: "ETIMEDOUT 2" },
      { reason: `sel-${tag}`, lastError: "ETIMEDOUT 3", status: "resolved" },
      { reason: `sel-${tag}`, lastError: "ETIMEDOUTS are different" },
      { reason: `sel-${tag}`, lastError: "etimedout lower case is another class" },
      { reason: `sel-${tag}`, lastError: "503" },
      { reason: `sel-${tag}` },
      { reason: `sel-${tag}`, lastError: "" },
      { reason: `sel-${tag}`, lastError: "-- no token" },
      { reason: `sel-${tag}`, lastError: "x", status: "cancelled" },
      { reason: `other-${tag}`, lastError: "ETIMEDOUT 4" },
      { reason: `other-${tag}` },
    ]);
    const got = await groups({ kind: `kind-${tag}` });
    // sel: ETIMEDOUT, ETIMEDOUTS, "etimedout lower case…", 503, "-- no token", none; other: ETIMEDOUT, none.
    expect(got).toHaveLength(8);
    const active = ACTIVE.join(",");
    let total = 0;
    for (const group of got) {
      const items = await listAll({
        status: active,
        kind: group.kind!,
        reason: group.reason,
        errorClass: group.errorClass ?? "(none)",
      });
      const want = seeded
        .filter(
          (s) =>
            ACTIVE.includes(s.status) &&
            s.kind === group.kind &&
            s.reason === group.reason &&
            s.errorClass === group.errorClass,
        )
        .map((s) => s.id);
      expect(items.map((i) => i.id).sort(), key(group)).toEqual(want.sort());
      expect(items).toHaveLength(group.count);
      expect(items.every((i) => i.errorClass === group.errorClass)).toBe(true);
      total += items.length;
    }
    expect(total).toBe(seeded.filter((s) => ACTIVE.includes(s.status)).length);
  });

  it("selects the group without an error class with errorClass=(none), across the whole table", async () => {
    const tag = newTag();
    const seeded = await seed(tag, [
      { reason: `none-${tag}` },
      { reason: `none-${tag}`, lastError: "" },
      { reason: `none-${tag}`, lastError: "(none)" },
      { reason: `none-${tag}`, lastError: "ETIMEDOUT" },
    ]);
    const [noClass] = (await groups({ kind: `kind-${tag}` })).filter((g) => g.errorClass === null);
    expect(noClass).toMatchObject({ reason: `none-${tag}`, count: 3 });
    const items = await listAll({ kind: `kind-${tag}`, reason: `none-${tag}`, errorClass: "(none)" });
    expect(items.map((i) => i.id).sort()).toEqual(
      seeded
        .slice(0, 3)
        .map((s) => s.id)
        .sort(),
    );
    expect(items.map((i) => i.errorClass)).toEqual([null, null, null]);

    // Unfiltered otherwise, (none) is exactly the database's NULL class, newest first.
    const all = await listAll({ errorClass: "(none)" });
    const want = await sql(`SELECT id::text FROM review_records WHERE error_class IS NULL ORDER BY seq DESC`);
    expect(all.map((i) => i.id)).toEqual(want.map((r) => r.id));
  });

  it("filters by a class alone, exactly, not by prefix, and combines with the other filters", async () => {
    const tag = newTag();
    const cls = `cause-${tag}`;
    const seeded = await seed(tag, [
      { reason: `c-${tag}`, lastError: "one", errorClass: cls },
      { reason: `c-${tag}`, lastError: "two", errorClass: cls, status: "resolved" },
      { reason: `d-${tag}`, errorClass: cls },
      { reason: `d-${tag}`, lastError: "longer class", errorClass: `${cls}X` },
    ]);
    const ids = async (query: Record<string, string>) => (await listAll(query)).map((i) => i.id);
    expect(await ids({ errorClass: cls })).toEqual([seeded[2]!.id, seeded[1]!.id, seeded[0]!.id]);
    expect(await ids({ errorClass: cls, status: "open" })).toEqual([seeded[2]!.id, seeded[0]!.id]);
    expect(await ids({ errorClass: cls, reason: `c-${tag}` })).toEqual([seeded[1]!.id, seeded[0]!.id]);
    expect(await ids({ errorClass: `${cls}X` })).toEqual([seeded[3]!.id]);
    const bad = await call(list, { token: reader, path: "/api/v1/reviews?errorClass=" });
    expect(bad.status).toBe(400);
    expect(bad.body.error.issues[0].path).toBe("errorClass");
  });

  it("serves a record without a kind in a group of kind null", async () => {
    const tag = newTag();
    await seed(tag, [{ reason: `nokind-${tag}`, lastError: "ETIMEDOUT", kind: null }]);
    const got = await groups({ reason: `nokind-${tag}` });
    expect(got).toEqual([
      expect.objectContaining({ kind: null, reason: `nokind-${tag}`, errorClass: "ETIMEDOUT", count: 1 }),
    ]);
  });
});
