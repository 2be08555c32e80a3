import { beforeAll, describe, expect, it } from "vitest";
import { GET as health } from "@/app/api/health/route";
import { POST as batch } from "@/app/api/v1/reviews/batch/route";
import { GET as detail } from "@/app/api/v1/reviews/[id]/route";
import { GET as list, POST as report } from "@/app/api/v1/reviews/route";
import { GET as stats } from "@/app/api/v1/reviews/stats/route";
import { db } from "@/lib/db/client";
import { reviewFilterSql } from "@/lib/reviews";
import { call, tokenFor } from "../support/http";
import { setupTestDatabase, withClient } from "../support/database";

// The read side of docs/api.md: the list (filters, search, keyset pagination), the stats, one
// record in detail, and health. Every test seeds its own records under a unique tag through the
// API (statuses and timestamps the API cannot set yet are adjusted with SQL), so the tests do
// not depend on each other or on their order.

const database = setupTestDatabase();

/** Exactly the fields docs/api.md promises for a list item, no more and no fewer. */
const LIST_FIELDS = [
  "id",
  "status",
  "category",
  "reason",
  "kind",
  "messageId",
  "effectKey",
  "sequenceKey",
  "sequence",
  "attempts",
  "requiredCheck",
  "version",
  "firstSeenAt",
  "lastSeenAt",
  // Additions (docs/api-additions.md): the cause of the failure, for the grouped view.
  "errorClass",
  "lastError",
  // A held gap whose predecessors have been applied (docs/operations.md, "Gap release").
  "ready",
  // Who is on the record (docs/api.md, ADR 0028): {id, name, email} or null.
  "assignee",
] as const;

type Status = "open" | "replay-scheduled" | "replaying" | "resolved" | "cancelled";
type Category = "manual-review" | "sequence-gap" | "effect-result-unknown";
type Item = Record<(typeof LIST_FIELDS)[number], any>;

let consumer: string;
let reader: string;
beforeAll(async () => {
  consumer = await tokenFor("consumer");
  reader = await tokenFor("auditor");
});

const newTag = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;

interface Spec {
  category?: Category;
  reason?: string;
  status?: Status;
  kind?: string;
  sequenceKey?: string;
  effectKey?: string;
  messageId?: string;
  sequence?: number;
  payload?: Record<string, unknown>;
  requiredCheck?: string;
  lastError?: string;
}

interface Seeded extends Required<Omit<Spec, "payload" | "requiredCheck" | "lastError">> {
  id: string;
}

/** A report for one spec; unspecified keys get values unique to the tag and the index. */
function reportFor(tag: string, spec: Spec, index: number) {
  const message = {
    id: spec.messageId ?? `m-${tag}-${index}`,
    kind: spec.kind ?? `kind-${tag}`,
    effectKey: spec.effectKey ?? `eff-${tag}-${index}`,
    sequenceKey: spec.sequenceKey ?? `seq-${tag}`,
    sequence: spec.sequence ?? index + 2,
    payload: spec.payload ?? { schema: "2021-03", invoiceId: `${tag}-${index}` },
  };
  return {
    category: spec.category ?? ("manual-review" as Category),
    reason: spec.reason ?? `reason-${tag}`,
    requiredCheck: spec.requiredCheck ?? `check ${tag} ${index}`,
    attempts: 1,
    ...(spec.lastError === undefined ? {} : { lastError: spec.lastError }),
    source: { transport: "redis-streams", queue: `q-${tag}` },
    message,
  };
}

/** Seeds records through the batch API in one call, then sets statuses the API cannot reach yet. */
async function seed(tag: string, specs: Spec[]): Promise<Seeded[]> {
  const reports = specs.map((spec, i) => reportFor(tag, spec, i));
  const answer = await call(batch, { token: consumer, path: "/api/v1/reviews/batch", body: { records: reports } });
  expect(answer.status).toBe(200);
  expect(answer.body.recorded).toBe(specs.length);
  const seeded = specs.map((spec, i) => ({
    id: answer.body.results[i].id as string,
    status: spec.status ?? "open",
    category: reports[i]!.category,
    reason: reports[i]!.reason,
    kind: reports[i]!.message.kind,
    sequenceKey: reports[i]!.message.sequenceKey,
    effectKey: reports[i]!.message.effectKey,
    messageId: reports[i]!.message.id,
    sequence: reports[i]!.message.sequence,
  }));
  await setStatuses(seeded.filter((s) => s.status !== "open"));
  return seeded;
}

async function setStatuses(records: { id: string; status: Status }[]): Promise<void> {
  if (records.length === 0) return;
  await withClient(database.current.url, (c) =>
    c.query(
      `UPDATE review_records r SET status = v.status::"ReviewStatus"
         FROM unnest($1::uuid[], $2::text[]) AS v(id, status) WHERE r.id = v.id`,
      [records.map((r) => r.id), records.map((r) => r.status)],
    ),
  );
}

async function listPage(query: string) {
  const answer = await call(list, { token: reader, path: `/api/v1/reviews?${query}` });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body as { items: Item[]; nextCursor: string | null };
}

/** Follows nextCursor to the end; returns every item in order and the size of each page. */
async function walk(query: Record<string, string>, limit?: number) {
  const items: Item[] = [];
  const pageSizes: number[] = [];
  let cursor: string | null = null;
  for (let pages = 0; ; pages++) {
    if (pages > 1000) throw new Error("pagination does not end");
    const params = new URLSearchParams(query);
    if (limit !== undefined) params.set("limit", String(limit));
    if (cursor) params.set("cursor", cursor);
    const page = await listPage(params.toString());
    items.push(...page.items);
    pageSizes.push(page.items.length);
    cursor = page.nextCursor;
    if (!cursor) return { items, pageSizes };
  }
}

const ids = (items: { id: string }[]) => items.map((i) => i.id);

/** The ids the database itself holds for a condition, newest first: the oracle for filters. */
async function idsWhere(condition: string, params: unknown[] = []): Promise<string[]> {
  return withClient(database.current.url, async (c) => {
    const { rows } = await c.query(`SELECT id::text FROM review_records WHERE ${condition} ORDER BY seq DESC`, params);
    return rows.map((r) => r.id as string);
  });
}

/** The given records in the order the list must return them: by `seq`, newest first. */
async function newestFirst(records: { id: string }[]): Promise<string[]> {
  return idsWhere("id = ANY($1::uuid[])", [records.map((r) => r.id)]);
}

describe("GET /api/v1/reviews: order and pagination", () => {
  it("lists newest first", async () => {
    const tag = newTag();
    // One report at a time, so each is unambiguously newer than the one before.
    const created: string[] = [];
    for (let i = 0; i < 4; i++) {
      const answer = await call(report, { token: consumer, body: reportFor(tag, {}, i) });
      expect(answer.status).toBe(201);
      created.push(answer.body.id);
    }
    const { items } = await listPage(`kind=kind-${tag}`);
    expect(ids(items)).toEqual([...created].reverse());
    const seen = items.map((i) => Date.parse(i.firstSeenAt));
    expect(seen).toEqual([...seen].sort((a, b) => b - a));
    // Unfiltered, the newest record of the whole table comes first.
    expect((await listPage("limit=1")).items[0]!.id).toBe(created[3]);
  });

  it("limit=7 walks every record of the table exactly once, with no gaps, and ends with nextCursor null", async () => {
    const tag = newTag();
    await seed(
      tag,
      Array.from({ length: 23 }, () => ({})),
    );
    const { items, pageSizes } = await walk({}, 7);
    const all = await idsWhere("true");
    expect(ids(items)).toEqual(all);
    expect(new Set(ids(items)).size).toBe(items.length);
    expect(pageSizes.slice(0, -1).every((n) => n === 7)).toBe(true);
    expect(pageSizes.at(-1)).toBe(all.length % 7 || 7);
  });

  it("a filtered walk whose total is a multiple of the limit ends on a full page, without an empty extra page", async () => {
    const tag = newTag();
    const seeded = await seed(
      tag,
      Array.from({ length: 21 }, () => ({})),
    );
    const { items, pageSizes } = await walk({ kind: `kind-${tag}` }, 7);
    expect(pageSizes).toEqual([7, 7, 7]);
    expect(ids(items)).toEqual(await newestFirst(seeded));
  });

  it("records reported during a walk neither repeat nor hide older ones (keyset, not OFFSET)", async () => {
    const tag = newTag();
    const seeded = await seed(
      tag,
      Array.from({ length: 10 }, () => ({})),
    );
    const first = await listPage(`kind=kind-${tag}&limit=4`);
    // With OFFSET, three new rows on top would push rows 2–4 of page one onto page two again.
    await seed(tag, [{ messageId: `late-1-${tag}` }, { messageId: `late-2-${tag}` }, { messageId: `late-3-${tag}` }]);
    const rest = await walk({ kind: `kind-${tag}`, cursor: first.nextCursor! }, 4);
    expect([...ids(first.items), ...ids(rest.items)]).toEqual(await newestFirst(seeded));
  });

  it("without a limit a page holds 50 items", async () => {
    const tag = newTag();
    await seed(
      tag,
      Array.from({ length: 53 }, () => ({})),
    );
    const first = await listPage(`kind=kind-${tag}`);
    expect(first.items).toHaveLength(50);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await listPage(`kind=kind-${tag}&cursor=${first.nextCursor}`);
    expect(second.items).toHaveLength(3);
    expect(second.nextCursor).toBeNull();
  });

  it("each item has exactly the fields of docs/api.md, with the values reported", async () => {
    const tag = newTag();
    const [one] = await seed(tag, [
      { category: "sequence-gap", reason: `gap-${tag}`, sequence: 11, effectKey: `invoice-${tag}:reminder` },
    ]);
    const { items } = await listPage(`kind=kind-${tag}`);
    expect(items).toHaveLength(1);
    const item = items[0]!;
    expect(Object.keys(item).sort()).toEqual([...LIST_FIELDS].sort());
    expect(item).toEqual({
      id: one!.id,
      status: "open",
      category: "sequence-gap",
      reason: `gap-${tag}`,
      kind: `kind-${tag}`,
      messageId: one!.messageId,
      effectKey: `invoice-${tag}:reminder`,
      sequenceKey: `seq-${tag}`,
      sequence: 11,
      attempts: 1,
      requiredCheck: `check ${tag} 0`,
      version: 1,
      firstSeenAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      lastSeenAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      errorClass: null,
      lastError: null,
      ready: false,
      assignee: null,
    });
    // The same shape on every page of an unfiltered list, whatever the record's origin.
    for (const other of (await listPage("limit=500")).items) {
      expect(Object.keys(other).sort()).toEqual([...LIST_FIELDS].sort());
    }
  });

  it("an invalid message's missing keys are null in the list, not absent", async () => {
    const tag = newTag();
    const answer = await call(report, {
      token: consumer,
      body: { ...reportFor(tag, {}, 0), reason: `no-keys-${tag}`, message: { note: `no keys ${tag}` } },
    });
    expect(answer.status).toBe(201);
    const { items } = await listPage(`reason=no-keys-${tag}`);
    expect(items).toHaveLength(1);
    expect(Object.keys(items[0]!).sort()).toEqual([...LIST_FIELDS].sort());
    expect(items[0]).toMatchObject({ messageId: null, kind: null, effectKey: null, sequenceKey: null, sequence: null });
  });
});

describe("GET /api/v1/reviews: filters", () => {
  /** A set covering every status and category, two kinds and two sequence keys. */
  async function mixedSet(tag: string) {
    const specs: Spec[] = [
      { category: "manual-review", reason: `invalid-contract-${tag}`, status: "open" },
      { category: "manual-review", reason: `unsupported-schema-${tag}`, status: "resolved" },
      { category: "sequence-gap", reason: `gap-${tag}`, status: "open", sequenceKey: `seqB-${tag}` },
      { category: "sequence-gap", reason: `gap-${tag}`, status: "replay-scheduled", kind: `kindB-${tag}` },
      { category: "effect-result-unknown", reason: `unknown-${tag}`, status: "replaying" },
      { category: "effect-result-unknown", reason: `unknown-${tag}`, status: "cancelled", sequenceKey: `seqB-${tag}` },
      { category: "manual-review", reason: `invalid-contract-${tag}`, status: "open", kind: `kindB-${tag}` },
      { category: "sequence-gap", reason: `gap-${tag}`, status: "open" },
    ];
    return seed(tag, specs);
  }

  /** The seeded records that match, newest first. */
  async function expected(set: Seeded[], match: (r: Seeded) => boolean) {
    return newestFirst(set.filter(match));
  }

  it("status, one value and a comma list: the whole result is what the database holds, ours included", async () => {
    const set = await mixedSet(newTag());
    const ours = new Set(ids(set));
    for (const statuses of [["open"], ["resolved"], ["replay-scheduled", "replaying"], ["cancelled", "open"]]) {
      const { items } = await walk({ status: statuses.join(",") }, 100);
      expect(ids(items)).toEqual(await idsWhere(`status::text = ANY($1)`, [statuses]));
      expect(ids(items).filter((id) => ours.has(id))).toEqual(await expected(set, (r) => statuses.includes(r.status)));
      expect(items.every((i) => statuses.includes(i.status))).toBe(true);
    }
  });

  it("category, one value and a comma list", async () => {
    const set = await mixedSet(newTag());
    const ours = new Set(ids(set));
    for (const categories of [["sequence-gap"], ["manual-review", "effect-result-unknown"]]) {
      const { items } = await walk({ category: categories.join(",") }, 100);
      expect(ids(items)).toEqual(await idsWhere(`category::text = ANY($1)`, [categories]));
      expect(ids(items).filter((id) => ours.has(id))).toEqual(
        await expected(set, (r) => categories.includes(r.category)),
      );
      expect(items.every((i) => categories.includes(i.category))).toBe(true);
    }
  });

  it("reason, kind, sequenceKey and effectKey each return exactly the matching records", async () => {
    const tag = newTag();
    const set = await mixedSet(tag);
    const cases: [string, string, (r: Seeded) => boolean][] = [
      ["reason", `gap-${tag}`, (r) => r.reason === `gap-${tag}`],
      ["reason", `invalid-contract-${tag}`, (r) => r.reason === `invalid-contract-${tag}`],
      ["kind", `kindB-${tag}`, (r) => r.kind === `kindB-${tag}`],
      ["kind", `kind-${tag}`, (r) => r.kind === `kind-${tag}`],
      ["sequenceKey", `seqB-${tag}`, (r) => r.sequenceKey === `seqB-${tag}`],
      ["effectKey", set[4]!.effectKey, (r) => r.effectKey === set[4]!.effectKey],
      // Exact match, not a prefix: `eff-<tag>-1` must not also find `eff-<tag>-10`.
      ["effectKey", `eff-${tag}`, () => false],
      ["kind", `kind`, (r) => r.kind === "kind"],
    ];
    for (const [parameter, value, match] of cases) {
      const { items } = await walk({ [parameter]: value }, 3);
      expect(ids(items), `${parameter}=${value}`).toEqual(await expected(set, match));
    }
  });

  it("filters combine (AND) and paginate together", async () => {
    const tag = newTag();
    const set = await mixedSet(tag);
    // Add more of one combination so it spans several pages of 2.
    const more = await seed(
      tag,
      Array.from({ length: 5 }, (_, i) => ({
        messageId: `more-${tag}-${i}`,
        category: "sequence-gap" as const,
        reason: `gap-${tag}`,
        status: i % 2 ? ("replaying" as const) : ("open" as const),
      })),
    );
    const all = [...set, ...more];
    const query = { kind: `kind-${tag}`, status: "open,replaying", category: "sequence-gap,effect-result-unknown" };
    const { items, pageSizes } = await walk(query, 2);
    const want = await expected(
      all,
      (r) =>
        r.kind === `kind-${tag}` &&
        ["open", "replaying"].includes(r.status) &&
        ["sequence-gap", "effect-result-unknown"].includes(r.category),
    );
    expect(want.length).toBeGreaterThan(4);
    expect(ids(items)).toEqual(want);
    expect(pageSizes.every((n) => n <= 2)).toBe(true);

    const narrower = await walk({ ...query, reason: `unknown-${tag}`, sequenceKey: `seq-${tag}` }, 2);
    expect(ids(narrower.items)).toEqual(
      await expected(
        all,
        (r) => r.kind === `kind-${tag}` && r.reason === `unknown-${tag}` && ["open", "replaying"].includes(r.status),
      ),
    );
  });
});

describe("GET /api/v1/reviews: q (free-text search)", () => {
  /** Records whose messages carry searchable text; each search below must find exactly its own. */
  async function searchable(tag: string) {
    const [main, percent, percentLookalike, underscore, underscoreLookalike] = await seed(tag, [
      {
        messageId: `MsG-Case-${tag}`,
        effectKey: `effq-${tag}:reminder`,
        sequenceKey: `seqq-${tag}`,
        payload: { schema: "2021-03", note: `Purple Giraffe ${tag}` },
      },
      { payload: { schema: "2021-03", note: `50%off-${tag}` } },
      { payload: { schema: "2021-03", note: `50Xoff-${tag}` } },
      { payload: { schema: "2021-03", note: `a_b-${tag}` } },
      { payload: { schema: "2021-03", note: `axb-${tag}` } },
    ]);
    return {
      main: main!,
      percent: percent!,
      percentLookalike: percentLookalike!,
      underscore: underscore!,
      underscoreLookalike: underscoreLookalike!,
    };
  }

  const search = async (q: string) => ids((await walk({ q }, 50)).items);

  it("finds a record by its message id, effectKey, sequenceKey, payload text and record id", async () => {
    const tag = newTag();
    const { main } = await searchable(tag);
    expect(await search(main.messageId)).toEqual([main.id]);
    expect(await search(`effq-${tag}:reminder`)).toEqual([main.id]);
    expect(await search(`seqq-${tag}`)).toEqual([main.id]);
    expect(await search(`Giraffe ${tag}`)).toEqual([main.id]);
    expect(await search(main.id)).toEqual([main.id]);
    // The start of the id is enough (the console shows ids by their first 8 characters), in any
    // letter case and up to any character, a dash included.
    expect(await search(main.id.slice(0, 13))).toContain(main.id);
    expect(await search(main.id.slice(0, 8).toUpperCase())).toContain(main.id);
    expect(await search(main.id.slice(0, 9))).toContain(main.id);
    expect(await search(main.id.slice(0, 35))).toEqual([main.id]);
  });

  it("is case-insensitive, in the query and in the stored text", async () => {
    const tag = newTag();
    const { main } = await searchable(tag);
    expect(await search(`msg-case-${tag}`)).toEqual([main.id]);
    expect(await search(`MSG-CASE-${tag.toUpperCase()}`)).toEqual([main.id]);
    expect(await search(`purple giraffe ${tag}`)).toEqual([main.id]);
    expect(await search(main.id.toUpperCase())).toEqual([main.id]);
  });

  it("treats % and _ literally, not as LIKE wildcards", async () => {
    const tag = newTag();
    const { percent, underscore } = await searchable(tag);
    expect(await search(`50%off-${tag}`)).toEqual([percent.id]);
    expect(await search(`a_b-${tag}`)).toEqual([underscore.id]);
    // As wildcards these would match every record; taken literally they match none, because no
    // message this file reports contains "%%" or "__".
    expect(await search("%%")).toEqual([]);
    expect(await search("__")).toEqual([]);
  });

  it("combines with filters and pagination", async () => {
    const tag = newTag();
    const set = await seed(
      tag,
      Array.from({ length: 9 }, (_, i) => ({
        status: i % 3 === 0 ? ("resolved" as const) : ("open" as const),
        payload: { schema: "2021-03", note: `needle-${tag} ${i}` },
      })),
    );
    const { items } = await walk({ q: `needle-${tag}`, status: "open" }, 2);
    expect(ids(items)).toEqual(await newestFirst(set.filter((r) => r.status === "open")));
  });

  it("finds a record by words of its last error, its reason and its required check", async () => {
    const tag = newTag();
    const [timedOut, paid, checked, quiet] = await seed(tag, [
      { lastError: `ETIMEDOUT after 30000 ms: POST https://ledger.example/${tag}` },
      { lastError: "Error: invoice 2050 was already paid" },
      { reason: `bank-hold-${tag}`, requiredCheck: `Call the Bank about wire ${tag}` },
      { payload: { schema: "2021-03", note: "nothing to see" } },
    ]);
    const within = async (q: string) => ids((await walk({ q, kind: `kind-${tag}` }, 50)).items);
    expect(await within("ETIMEDOUT")).toEqual([timedOut!.id]);
    expect(await within("invoice 2050")).toEqual([paid!.id]);
    expect(await within("ALREADY PAID")).toEqual([paid!.id]);
    expect(await within(`bank-hold-${tag}`)).toEqual([checked!.id]);
    expect(await within(`call the bank about wire ${tag}`)).toEqual([checked!.id]);
    // The parts are searched one by one: a term that spans the reason and the check finds nothing.
    expect(await within(`bank-hold-${tag}Call`)).toEqual([]);
    expect(await within("nothing to see")).toEqual([quiet!.id]);
  });

  it("keeps a whole message id an exact lookup, though another record's error mentions it", async () => {
    const tag = newTag();
    const [target] = await seed(tag, [{}]);
    await seed(`${tag}x`, [{ lastError: `duplicate of m-${tag}-0, see there` }]);
    expect(await search(`m-${tag}-0`)).toEqual([target!.id]);
    // As a substring (a part of the id), the mention is found too.
    expect((await search(`m-${tag}-`)).sort()).toHaveLength(2);
  });

  // Found by this file: the search runs over the message's JSON text, so a `"` in the payload
  // is stored as `\"` and typing the text as it reads finds nothing.
  it("finds payload text that contains a double quote, typed as it reads", async () => {
    const tag = newTag();
    const [quoted] = await seed(tag, [{ payload: { schema: "2021-03", note: `he said "hi" ${tag}` } }]);
    expect(await search(`said "hi" ${tag}`)).toEqual([quoted!.id]);
  });
});

describe("GET /api/v1/reviews: q that is exactly an id or a key (B-tree lookups)", () => {
  const search = async (q: string, extra: Record<string, string> = {}) => ids((await walk({ q, ...extra }, 1)).items);

  /**
   * `exact` has its own message id, effect key and sequence key; `longer` has keys that start
   * with them, and `mentions` carries them in its payload. By substring all three would match.
   */
  async function keyed(tag: string) {
    const [exact, longer, mentions] = await seed(tag, [
      { messageId: `mid-${tag}`, effectKey: `ek-${tag}`, sequenceKey: `sk-${tag}` },
      { messageId: `mid-${tag}-2`, effectKey: `ek-${tag}-2`, sequenceKey: `sk-${tag}-2` },
      {
        status: "resolved",
        payload: { schema: "2021-03", note: `about mid-${tag}, ek-${tag} and sk-${tag}` },
      },
    ]);
    return { exact: exact!, longer: longer!, mentions: mentions! };
  }

  it("a whole record id, message id, effect key or sequence key selects the records that have it", async () => {
    const tag = newTag();
    const { exact } = await keyed(tag);
    expect(await search(exact.id)).toEqual([exact.id]);
    // A UUID is the same UUID in upper case.
    expect(await search(exact.id.toUpperCase())).toEqual([exact.id]);
    expect(await search(`mid-${tag}`)).toEqual([exact.id]);
    expect(await search(`ek-${tag}`)).toEqual([exact.id]);
    expect(await search(`sk-${tag}`)).toEqual([exact.id]);
  });

  it("every record of a key, newest first, across pages", async () => {
    const tag = newTag();
    const set = await seed(
      tag,
      Array.from({ length: 5 }, (_, i) => ({ sequenceKey: `shared-${tag}`, effectKey: `fx-${tag}-${i}` })),
    );
    expect(await search(`shared-${tag}`)).toEqual(await newestFirst(set));
  });

  it("a message id that is a UUID is found by its message id", async () => {
    const tag = newTag();
    const messageId = crypto.randomUUID();
    const [record] = await seed(tag, [{ messageId }]);
    expect(await search(messageId)).toEqual([record!.id]);
  });

  it("a UUID that is nobody's id or key answers an empty list, not an error", async () => {
    const page = await listPage(`q=${crypto.randomUUID()}`);
    expect(page).toEqual({ items: [], nextCursor: null });
  });

  it("a part of a key, or a key in another case, is still a substring search", async () => {
    const tag = newTag();
    const { exact, longer, mentions } = await keyed(tag);
    // Not a whole key: every record whose text contains it.
    expect(await search(`id-${tag}`)).toEqual(await newestFirst([exact, longer, mentions]));
    expect(await search(`mid-${tag}-`)).toEqual([longer.id]);
    expect(await search(exact.id.slice(0, 18))).toContain(exact.id);
    // Keys are case-sensitive, the text search is not: in another case the key is a substring.
    expect(await search(`MID-${tag.toUpperCase()}`)).toEqual(await newestFirst([exact, longer, mentions]));
  });

  it("filters narrow the exact-term records; whether q is an exact term does not depend on them", async () => {
    const tag = newTag();
    const set = await seed(
      tag,
      Array.from({ length: 6 }, (_, i) => ({
        sequenceKey: `fk-${tag}`,
        status: i % 2 === 0 ? ("resolved" as const) : ("open" as const),
        kind: i < 3 ? `k1-${tag}` : `k2-${tag}`,
      })),
    );
    expect(await search(`fk-${tag}`, { status: "open" })).toEqual(
      await newestFirst(set.filter((r) => r.status === "open")),
    );
    expect(await search(`fk-${tag}`, { status: "resolved", kind: `k2-${tag}` })).toEqual(
      await newestFirst(set.filter((r) => r.status === "resolved" && r.kind === `k2-${tag}`)),
    );
    // `mentions` (resolved) contains the term, but the term is a whole key: the filter narrows the
    // key's records (open), leaving none, rather than switching to the substring search.
    const other = newTag();
    const { mentions } = await keyed(other);
    expect(mentions.status).toBe("resolved");
    expect(await search(`mid-${other}`, { status: "resolved" })).toEqual([]);
  });

  it("a bulk selection by filter (the condition without a known mode) selects what the list shows", async () => {
    const tag = newTag();
    await keyed(tag);
    // What lib/operations freezes for a `filter` selection: the same builder, both modes guarded
    // by the term's EXISTS in one statement.
    const selected = async (q: string, status?: string[]) => {
      const rows = await db().$queryRaw<{ id: string }[]>`
        SELECT id::text AS id FROM review_records
         WHERE ${reviewFilterSql({ q, status: status as never })} ORDER BY seq DESC`;
      return rows.map((r) => r.id);
    };
    for (const q of [`mid-${tag}`, `ek-${tag}`, `sk-${tag}`, `id-${tag}`, `MID-${tag}`, crypto.randomUUID()]) {
      expect(await selected(q), q).toEqual(await search(q));
    }
    expect(await selected(`mid-${tag}`, ["resolved"])).toEqual([]);
  });
});

describe("GET /api/v1/reviews/stats", () => {
  it("counts by status, category and reason, and the age of the oldest open record", async () => {
    const tag = newTag();
    const before = (await call(stats, { token: reader, path: "/api/v1/reviews/stats" })).body;
    const set = await seed(tag, [
      { category: "manual-review", reason: `a-${tag}`, status: "open" },
      { category: "manual-review", reason: `a-${tag}`, status: "resolved" },
      { category: "sequence-gap", reason: `b-${tag}`, status: "open" },
      { category: "sequence-gap", reason: `b-${tag}`, status: "replay-scheduled" },
      { category: "effect-result-unknown", reason: `c-${tag}`, status: "cancelled" },
      { category: "effect-result-unknown", reason: `c-${tag}`, status: "replaying" },
      { category: "effect-result-unknown", reason: `c-${tag}`, status: "open" },
    ]);
    // Backdate: an open record 3650 days old, older finished ones that must not count as open.
    const DAY = 86_400;
    await withClient(database.current.url, (c) =>
      c.query(
        `UPDATE review_records SET first_seen_at = now() - make_interval(days => v.days)
           FROM unnest($1::uuid[], $2::int[]) AS v(id, days) WHERE review_records.id = v.id`,
        [
          [set[0]!.id, set[1]!.id, set[4]!.id],
          [3650, 5000, 6000],
        ],
      ),
    );
    const answer = await call(stats, { token: reader, path: "/api/v1/reviews/stats" });
    expect(answer.status).toBe(200);
    const after = answer.body;
    const delta = (bucket: "byStatus" | "byCategory", key: string) =>
      (after[bucket][key] ?? 0) - (before[bucket][key] ?? 0);

    expect(after.total - before.total).toBe(7);
    expect({
      open: delta("byStatus", "open"),
      "replay-scheduled": delta("byStatus", "replay-scheduled"),
      replaying: delta("byStatus", "replaying"),
      resolved: delta("byStatus", "resolved"),
      cancelled: delta("byStatus", "cancelled"),
    }).toEqual({ open: 3, "replay-scheduled": 1, replaying: 1, resolved: 1, cancelled: 1 });
    expect({
      "manual-review": delta("byCategory", "manual-review"),
      "sequence-gap": delta("byCategory", "sequence-gap"),
      "effect-result-unknown": delta("byCategory", "effect-result-unknown"),
    }).toEqual({ "manual-review": 2, "sequence-gap": 2, "effect-result-unknown": 3 });
    // The reasons are this test's own, so their counts are absolute.
    expect([after.byReason[`a-${tag}`], after.byReason[`b-${tag}`], after.byReason[`c-${tag}`]]).toEqual([2, 2, 3]);
    // The totals agree with the database, whatever other tests added.
    const inDb = await withClient(database.current.url, (c) =>
      c.query(`SELECT status::text, count(*)::int AS n FROM review_records GROUP BY 1`),
    );
    expect(after.byStatus).toEqual(Object.fromEntries(inDb.rows.map((r) => [r.status, r.n])));

    expect(after.oldestOpenAgeSeconds).toBeGreaterThanOrEqual(3650 * DAY - 5);
    expect(after.oldestOpenAgeSeconds).toBeLessThan(3650 * DAY + 120);
    expect(Math.abs(Date.parse(after.oldestOpenSince) - (Date.now() - 3650 * DAY * 1000))).toBeLessThan(120_000);
  });
});

/**
 * docs/api.md names two different things `sequence` in the detail: the list field (the record's
 * sequence number) and the state of its sequenceKey. They cannot both sit at the top level
 * (see the test "keeps the record's own sequence number"), so the state is read from
 * `sequenceState` when the answer has one, else from `sequence` as it is served today.
 */
function sequenceStateOf(got: Record<string, any>) {
  return "sequenceState" in got ? got.sequenceState : got.sequence;
}

/** The raw answer, for checks on the exact bytes and headers that `call` parses away. */
async function rawDetail(id: string) {
  const response = await detail(
    new Request(`http://localhost/api/v1/reviews/${id}`, { headers: { authorization: `Bearer ${reader}` } }),
    { params: Promise.resolve({ id }) },
  );
  return { status: response.status, type: response.headers.get("content-type"), text: await response.text() };
}

describe("GET /api/v1/reviews/{id}", () => {
  it("returns the list fields at top level plus message, revisions, history, replays, journal and sequence", async () => {
    const tag = newTag();
    // Unusual key order and nesting: the message is evidence and must come back as sent.
    const message = {
      zeta: true,
      sequence: 7,
      id: `msg-detail-${tag}`,
      payload: { z: 1, schema: "2021-03", a: { y: [3, 2, 1], b: null } },
      kind: "invoice.reminder",
      effectKey: `invoice-${tag}:reminder`,
      sequenceKey: `invoice-${tag}`,
      "x-trace": "abc",
    };
    const body = {
      category: "sequence-gap",
      reason: "sequence-gap",
      requiredCheck: `find messages 4–6 of invoice-${tag}`,
      attempts: 1,
      message,
    };
    const first = await call(report, { token: consumer, body });
    const again = await call(report, { token: consumer, body: { ...body, attempts: 2, lastError: "still held" } });
    expect([first.status, again.status]).toEqual([201, 200]);
    const id = first.body.id as string;

    await withClient(database.current.url, async (c) => {
      await c.query(
        `INSERT INTO effect_journal (effect_key, state, message_id, kind, sequence_key, sequence, provider_ref)
           VALUES ($1, 'applied', $2, 'invoice.reminder', $3, 3, 'prov-77')`,
        [message.effectKey, `msg-earlier-${tag}`, message.sequenceKey],
      );
      await c.query(`INSERT INTO sequence_state (sequence_key, last_sequence) VALUES ($1, 3)`, [message.sequenceKey]);
      // Inserted out of order, to see that revisions come back by number.
      await c.query(
        `INSERT INTO review_revisions (review_id, number, envelope, reason, created_by) VALUES
           ($1, 2, $2, 'fixed the invoice id', 'user:owner@example.test'),
           ($1, 1, $3, 'as received', 'system')`,
        [
          id,
          JSON.stringify({ ...message, payload: { schema: "2021-03", invoiceId: "fixed" } }),
          JSON.stringify(message),
        ],
      );
      await c.query(
        `INSERT INTO replays (review_id, revision_number, state, created_by, created_at)
           VALUES ($1, 1, 'failed', 'user:owner@example.test', now() - interval '1 hour'),
                  ($1, 2, 'scheduled', 'user:owner@example.test', now())`,
        [id],
      );
    });

    const answer = await call(detail, { token: reader, path: `/api/v1/reviews/${id}`, params: { id } });
    expect(answer.status).toBe(200);
    const got = answer.body;

    // The list fields, identical to what the list says about the same record (`sequence`
    // aside: its collision with the sequence state has a test of its own below).
    const [listed] = (await listPage(`effectKey=${encodeURIComponent(message.effectKey)}`)).items;
    for (const field of LIST_FIELDS.filter((f) => f !== "sequence")) {
      expect(got[field], field).toEqual(listed![field]);
    }
    expect(got).toMatchObject({ id, status: "open", attempts: 2, version: 2, messageId: message.id });

    expect(JSON.stringify(got.message)).toBe(JSON.stringify(message));
    expect(got.revisions.map((r: { number: number; reason: string }) => [r.number, r.reason])).toEqual([
      [1, "as received"],
      [2, "fixed the invoice id"],
    ]);
    expect(got.revisions[1].envelope.payload.invoiceId).toBe("fixed");
    expect(got.history.map((h: { action: string }) => h.action)).toEqual(["reported", "reported-again"]);
    expect(got.history[0]).toMatchObject({ actor: expect.stringMatching(/^token:/), toStatus: "open" });
    expect(got.replays.map((r: { revisionNumber: number; state: string }) => [r.revisionNumber, r.state])).toEqual([
      [1, "failed"],
      [2, "scheduled"],
    ]);
    expect(got.journal).toMatchObject({
      effectKey: message.effectKey,
      state: "applied",
      messageId: `msg-earlier-${tag}`,
      sequenceKey: message.sequenceKey,
      sequence: 3,
      providerRef: "prov-77",
    });
    expect(sequenceStateOf(got)).toMatchObject({ sequenceKey: message.sequenceKey, lastSequence: 3 });
  });

  it("journal and sequence are null when no journal entry or sequence state exists for the keys", async () => {
    const tag = newTag();
    const [withKeys] = await seed(tag, [{}]);
    const keyless = await call(report, {
      token: consumer,
      body: { ...reportFor(tag, {}, 1), message: { note: `nothing to key on ${tag}` } },
    });
    // A journal entry for another effect key must not be picked up.
    await withClient(database.current.url, (c) =>
      c.query(`INSERT INTO effect_journal (effect_key, state) VALUES ($1, 'applied')`, [
        `${withKeys!.effectKey}-other`,
      ]),
    );
    for (const id of [withKeys!.id, keyless.body.id]) {
      const got = await call(detail, { token: reader, params: { id } });
      expect(got.status).toBe(200);
      expect(got.body.journal).toBeNull();
      expect(sequenceStateOf(got.body)).toBeNull();
      expect(got.body.revisions).toEqual([]);
      expect(got.body.replays).toEqual([]);
      expect(got.body.history).toHaveLength(1);
    }
  });

  // Found by this file: the detail spreads the list fields and then sets `sequence` to the
  // sequence state, so the record's own sequence number (7 here) is lost, and is null whenever
  // its sequenceKey has no state yet.
  it("keeps the record's own sequence number at top level, as the list does, next to the sequence state", async () => {
    const tag = newTag();
    const [record] = await seed(tag, [{ sequence: 7 }]);
    await withClient(database.current.url, (c) =>
      c.query(`INSERT INTO sequence_state (sequence_key, last_sequence) VALUES ($1, 5)`, [record!.sequenceKey]),
    );
    const got = await call(detail, { token: reader, params: { id: record!.id } });
    expect(got.status).toBe(200);
    expect(got.body.sequence).toBe(7);
    expect(sequenceStateOf(got.body)).toMatchObject({ sequenceKey: record!.sequenceKey, lastSequence: 5 });
  });

  it("returns a payload with <script> verbatim as JSON data, served as application/json", async () => {
    const tag = newTag();
    const hostile = `<script>alert(1)</script>`;
    const [record] = await seed(tag, [{ payload: { schema: "2021-03", note: hostile, [hostile]: "key too" } }]);
    const raw = await rawDetail(record!.id);
    expect(raw.status).toBe(200);
    expect(raw.type).toMatch(/^application\/json\b/);
    const body = JSON.parse(raw.text);
    expect(body.message.payload.note).toBe(hostile);
    expect(body.message.payload[hostile]).toBe("key too");
    // Data, not markup: the text is a JSON string value, unchanged (no HTML entity encoding).
    expect(raw.text).toContain(`"note":"${hostile}"`);
  });

  // Found by this file: the message is parsed into a JS object and serialized again, which moves
  // integer-like keys to the front and rounds big numbers, so "exactly as received" does not hold.
  it("keeps integer-like keys where they were sent", async () => {
    const tag = newTag();
    const messageText = `{"zeta":1,"10":"ten","id":"msg-int-keys-${tag}","2":"two"}`;
    const rawBody = `{"category":"manual-review","reason":"invalid-contract","requiredCheck":"look","attempts":1,"message":${messageText}}`;
    const created = await call(report, { token: consumer, rawBody });
    expect(created.status).toBe(201);
    const raw = await rawDetail(created.body.id);
    expect(raw.text).toContain(`"message":${messageText}`);
  });

  it("keeps numbers beyond double precision as sent", async () => {
    const tag = newTag();
    const messageText = `{"id":"msg-big-number-${tag}","amountMinor":12345678901234567890}`;
    const rawBody = `{"category":"manual-review","reason":"invalid-contract","requiredCheck":"look","attempts":1,"message":${messageText}}`;
    const created = await call(report, { token: consumer, rawBody });
    expect(created.status).toBe(201);
    const raw = await rawDetail(created.body.id);
    expect(raw.text).toContain(`"message":${messageText}`);
  });
});

describe("GET /api/health", () => {
  it("answers 200 {status: ok} while the database answers", async () => {
    const response = await health();
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json\b/);
    expect(await response.json()).toEqual({ status: "ok" });
  });
});
