import { beforeAll, describe, expect, it } from "vitest";
import { GET as exportRoute } from "@/app/api/v1/audit/export/route";
import { GET as auditRoute } from "@/app/api/v1/audit/route";
import { GET as verificationRoute } from "@/app/api/v1/audit/verification/route";
import { appendDecision, type DecisionEntry, EXPORT_CHUNK } from "@/lib/audit";
import { db } from "@/lib/db/client";
import { call, tokenFor } from "../support/http";
import { setupTestDatabase, withClient } from "../support/database";

// The decision log's read side: the list (filters, keyset pagination), the streamed export in
// NDJSON and CSV, and the chain verification. Each test appends its own entries under a unique
// actor or action and filters by it, so the tests depend neither on each other nor on order.
// The oracle is always the table itself, read with SQL.

const database = setupTestDatabase();

const FIELDS = [
  "seq",
  "at",
  "actor",
  "actorRole",
  "action",
  "reviewId",
  "effectKey",
  "reason",
  "details",
  "prevHash",
  "hash",
] as const;
type Entry = Record<(typeof FIELDS)[number], any>;

let auditor: string;
beforeAll(async () => {
  auditor = await tokenFor("auditor");
});

const newTag = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function sql(text: string, params: unknown[] = []) {
  return withClient(database.current.url, async (c) => (await c.query(text, params)).rows);
}

/** Appends entries one at a time through the app's own path; returns their seqs in order. */
async function append(entries: DecisionEntry[]): Promise<number[]> {
  for (const entry of entries) await appendDecision(db(), entry);
  const rows = await sql(`SELECT seq::int AS seq FROM decision_log ORDER BY seq DESC LIMIT $1`, [entries.length]);
  return rows.map((r) => r.seq as number).reverse();
}

/** The entries as the table holds them, newest first: the oracle for every read. */
async function entriesWhere(condition: string, params: unknown[] = []): Promise<Entry[]> {
  const rows = await sql(
    `SELECT seq::int AS seq, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at, actor,
            actor_role AS "actorRole", action, review_id::text AS "reviewId", effect_key AS "effectKey", reason,
            details, prev_hash AS "prevHash", hash
       FROM decision_log WHERE ${condition} ORDER BY seq DESC`,
    params,
  );
  return rows as Entry[];
}

async function page(query: string, token = auditor) {
  const answer = await call(auditRoute, { token, path: `/api/v1/audit?${query}` });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body as { items: Entry[]; nextCursor: string | null };
}

/** Follows nextCursor to the end. */
async function walk(query: Record<string, string>, limit?: number) {
  const items: Entry[] = [];
  const sizes: number[] = [];
  let cursor: string | null = null;
  for (let pages = 0; ; pages++) {
    if (pages > 2000) throw new Error("pagination does not end");
    const params = new URLSearchParams(query);
    if (limit !== undefined) params.set("limit", String(limit));
    if (cursor) params.set("cursor", cursor);
    const got = await page(params.toString());
    items.push(...got.items);
    sizes.push(got.items.length);
    cursor = got.nextCursor;
    if (!cursor) return { items, sizes };
  }
}

const seqs = (items: { seq: number }[]) => items.map((i) => i.seq);

async function exportRaw(query: string, token = auditor): Promise<Response> {
  return exportRoute(
    new Request(`http://localhost/api/v1/audit/export?${query}`, { headers: { authorization: `Bearer ${token}` } }),
    { params: Promise.resolve({}) },
  );
}

/** A small RFC 4180 reader: quoted fields may hold commas, doubled quotes, CR and LF. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      record.push(field);
      field = "";
    } else if (c === "\r" && text[i + 1] === "\n") {
      record.push(field);
      records.push(record);
      record = [];
      field = "";
      i++;
    } else field += c;
  }
  if (quoted) throw new Error("unterminated quoted field");
  if (field !== "" || record.length > 0) throw new Error(`text after the last record: ${JSON.stringify(field)}`);
  return records;
}

/** Reasons that break naive CSV and NDJSON writers, and ones a spreadsheet would run as formulas. */
const TRICKY_REASONS = [
  'commas, "quotes" and a\nnewline',
  "CRLF\r\ninside, and a lone \r too",
  "unicode: Zoë, 日本, emoji 🧾, U+2028\u2028here",
  "trailing space and tab\t ",
  "",
];
const FORMULA_REASONS = [
  '=HYPERLINK("http://evil.example","click")',
  "+1+2",
  "-2+3",
  "@SUM(A1:A2)",
  "\tstarts with a tab",
  "＝full-width equals",
];

describe("GET /api/v1/audit: items and order", () => {
  it("serves each entry with exactly the fields, as stored, with the microseconds of `at`", async () => {
    const tag = newTag();
    const reviewId = crypto.randomUUID();
    await append([
      {
        actor: `actor-${tag}`,
        actorRole: "owner",
        action: "review.cancel",
        reviewId,
        effectKey: `invoice-${tag}:reminder`,
        reason: "the customer paid by phone",
        details: { nested: { list: [1, "two", null] }, n: 3 },
      },
      { actor: `actor-${tag}`, action: "token.created" },
    ]);
    const { items, nextCursor } = await page(`actor=actor-${tag}`);
    expect(nextCursor).toBeNull();
    expect(items).toEqual(await entriesWhere("actor = $1", [`actor-${tag}`]));
    for (const item of items) expect(Object.keys(item).sort()).toEqual([...FIELDS].sort());
    expect(items[1]).toMatchObject({
      actorRole: "owner",
      reviewId,
      effectKey: `invoice-${tag}:reminder`,
      details: { nested: { list: [1, "two", null] }, n: 3 },
    });
    expect(items[0]).toMatchObject({ actorRole: null, reviewId: null, effectKey: null, reason: null, details: null });
    expect(items[0]!.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(typeof items[0]!.seq).toBe("number");
    // Chained: each entry carries the previous one's hash.
    const [previous] = await entriesWhere("seq = $1", [items[0]!.seq - 1]);
    expect(items[0]!.prevHash).toBe(previous!.hash);
  });

  it("lists newest first; limit=7 walks every entry of the log exactly once; default page is 50", async () => {
    const tag = newTag();
    await append(
      Array.from({ length: 60 }, (_, i) => ({ actor: `walk-${tag}`, action: "review.note", reason: `${i}` })),
    );
    const { items, sizes } = await walk({}, 7);
    const all = await entriesWhere("true");
    expect(seqs(items)).toEqual(seqs(all));
    expect(new Set(seqs(items)).size).toBe(items.length);
    expect(sizes.slice(0, -1).every((n) => n === 7)).toBe(true);
    expect(sizes.at(-1)).toBe(all.length % 7 || 7);

    const first = await page(`actor=walk-${tag}`);
    expect(first.items).toHaveLength(50);
    expect(first.items.map((i) => i.reason)).toEqual(Array.from({ length: 50 }, (_, i) => `${59 - i}`));
    const second = await page(`actor=walk-${tag}&cursor=${first.nextCursor}`);
    expect(second.items.map((i) => i.reason)).toEqual(Array.from({ length: 10 }, (_, i) => `${9 - i}`));
    expect(second.nextCursor).toBeNull();
  });

  it("keeps its place while entries are appended during a walk (keyset, not OFFSET)", async () => {
    const tag = newTag();
    await append(Array.from({ length: 10 }, () => ({ actor: `live-${tag}`, action: "review.note" })));
    const want = seqs(await entriesWhere("actor = $1", [`live-${tag}`]));
    const first = await page(`actor=live-${tag}&limit=4`);
    await append(Array.from({ length: 3 }, () => ({ actor: `live-${tag}`, action: "review.note" })));
    const rest = await walk({ actor: `live-${tag}`, cursor: first.nextCursor! }, 4);
    expect([...seqs(first.items), ...seqs(rest.items)]).toEqual(want);
  });
});

describe("GET /api/v1/audit: filters", () => {
  /** Entries spread over two actors, actions, reviews and effect keys. */
  async function mixed(tag: string) {
    const reviewA = crypto.randomUUID();
    const reviewB = crypto.randomUUID();
    const specs: DecisionEntry[] = [];
    for (let i = 0; i < 12; i++) {
      specs.push({
        actor: i % 2 ? `alice-${tag}` : `bob-${tag}`,
        action: i % 3 ? `review.cancel-${tag}` : `review.note-${tag}`,
        reviewId: i % 4 === 0 ? reviewA : i % 4 === 1 ? reviewB : null,
        effectKey: i % 5 === 0 ? `eff-${tag}-1` : `eff-${tag}-${i}`,
        reason: `r${i}`,
      });
    }
    await append(specs);
    return { reviewA, reviewB };
  }

  it("actor, action, reviewId and effectKey each return exactly the matching entries, across pages", async () => {
    const tag = newTag();
    const { reviewA, reviewB } = await mixed(tag);
    const cases: [string, string, string][] = [
      ["actor", `alice-${tag}`, "actor"],
      ["actor", `bob-${tag}`, "actor"],
      ["action", `review.note-${tag}`, "action"],
      ["action", `review.cancel-${tag}`, "action"],
      ["reviewId", reviewA, "review_id"],
      ["reviewId", reviewB, "review_id"],
      ["effectKey", `eff-${tag}-1`, "effect_key"],
      // Exact, not a prefix: `eff-<tag>-1` must not also find `eff-<tag>-11`.
      ["effectKey", `eff-${tag}-11`, "effect_key"],
      ["reviewId", crypto.randomUUID(), "review_id"],
    ];
    for (const [parameter, value, column] of cases) {
      const { items } = await walk({ [parameter]: value }, 2);
      const want = await entriesWhere(`${column} = $1`, [value]);
      expect(seqs(items), `${parameter}=${value}`).toEqual(seqs(want));
      expect(items, `${parameter}=${value}`).toEqual(want);
    }
    const some = await walk({ effectKey: `eff-${tag}-1` });
    expect(some.items.length).toBeGreaterThan(1);
    // Actor and action are matched by a part of the name, ignoring case, when no value is exact
    // (tests/integration/audit-filter-terms.int.test.ts): `ALICE` finds every alice.
    const alice = await walk({ actor: "ALICE" }, 2);
    expect(seqs(alice.items)).toEqual(seqs(await entriesWhere("lower(actor) LIKE '%alice%'")));
  });

  it("filters combine (AND)", async () => {
    const tag = newTag();
    const { reviewA } = await mixed(tag);
    const { items } = await walk({ actor: `bob-${tag}`, action: `review.note-${tag}`, reviewId: reviewA }, 1);
    const want = await entriesWhere("actor = $1 AND action = $2 AND review_id = $3", [
      `bob-${tag}`,
      `review.note-${tag}`,
      reviewA,
    ]);
    expect(want.length).toBeGreaterThan(0);
    expect(seqs(items)).toEqual(seqs(want));
  });

  it("from is inclusive and to exclusive, to the microsecond, in any zone offset", async () => {
    const tag = newTag();
    for (let i = 0; i < 5; i++) {
      await append([{ actor: `time-${tag}`, action: "review.note", reason: `${i}` }]);
      await sleep(15);
    }
    const all = (await entriesWhere("actor = $1", [`time-${tag}`])).reverse(); // oldest first
    const at = all.map((e) => e.at as string);
    const reasonsOf = async (query: Record<string, string>) =>
      (await walk({ actor: `time-${tag}`, ...query }, 2)).items.map((i) => i.reason).reverse();

    expect(await reasonsOf({ from: at[1]!, to: at[3]! })).toEqual(["1", "2"]);
    expect(await reasonsOf({ from: at[3]! })).toEqual(["3", "4"]);
    expect(await reasonsOf({ to: at[1]! })).toEqual(["0"]);
    // One microsecond later excludes entry 1 from `from`, and includes entry 3 in `to`.
    const plusMicro = (iso: string) => {
      const micros = Number(iso.slice(20, 26)) + 1;
      expect(micros).toBeLessThan(1_000_000); // not worth carrying into the seconds in a test
      return `${iso.slice(0, 20)}${String(micros).padStart(6, "0")}Z`;
    };
    expect(await reasonsOf({ from: plusMicro(at[1]!), to: plusMicro(at[3]!) })).toEqual(["2", "3"]);
    // The same instant written with an offset of +02:30.
    const shifted = (iso: string) => {
      const d = new Date(Date.parse(iso) + 150 * 60_000);
      return `${d.toISOString().slice(0, 19)}.${iso.slice(20, 26)}+02:30`;
    };
    expect(await reasonsOf({ from: shifted(at[2]!), to: shifted(at[4]!) })).toEqual(["2", "3"]);
    expect(await reasonsOf({ from: at[2]!, to: at[2]! })).toEqual([]);
  });
});

describe("GET /api/v1/audit: refusals", () => {
  it.each([
    ["cursor=abc", "cursor"],
    // A cursor of the review list is not one of this list.
    [`cursor=${Buffer.from("s:5").toString("base64url")}`, "cursor"],
    [`cursor=${Buffer.from("d:99999999999999999999").toString("base64url")}`, "cursor"],
    ["cursor=%2B%2F%3D", "cursor"],
    ["limit=0", "limit"],
    ["limit=501", "limit"],
    ["limit=ten", "limit"],
    ["from=yesterday", "from"],
    ["from=2026-11-30", "from"],
    ["from=2026-11-30T10:00:00", "from"],
    ["from=0000-01-01T00:00:00Z", "from"],
    ["to=2026-11-30T10:00:00%2B0200", "to"],
    ["to=2026-02-30T10:00:00Z", "to"],
    ["from=2026-11-30T10:00:00Z&to=2026-11-29T10:00:00Z", "to"],
    ["reviewId=not-a-uuid", "reviewId"],
    ["actor=", "actor"],
    ["effectKey=%00x", "effectKey"],
  ])("%s is a 400 naming %s", async (query, field) => {
    const answer = await call(auditRoute, { token: auditor, path: `/api/v1/audit?${query}` });
    expect(answer.status, JSON.stringify(answer.body)).toBe(400);
    expect(answer.body.error.code).toBe("invalid-request");
    expect(answer.body.error.issues[0].path).toBe(field);
    expect(answer.body.error.message.startsWith(`${field}:`), answer.body.error.message).toBe(true);
  });

  it.each([
    ["format=xml", "format"],
    ["", "format"],
    ["format=csv&from=soon", "from"],
  ])("export %s is a 400 naming %s", async (query, field) => {
    const response = await exportRaw(query);
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.error.issues[0].path).toBe(field);
  });

  it("refuses consumer and support tokens with 403 on every endpoint, and logs each refusal", async () => {
    const endpoints = [
      [auditRoute, "/api/v1/audit"],
      [exportRoute, "/api/v1/audit/export?format=ndjson"],
      [verificationRoute, "/api/v1/audit/verification"],
    ] as const;
    for (const role of ["consumer", "support"] as const) {
      const name = `refused-${role}-${newTag()}`;
      const token = await tokenFor(role, name);
      for (const [handler, path] of endpoints) {
        const answer = await call(handler, { token, path });
        expect(answer.status, `${role} ${path}`).toBe(403);
        expect(answer.body.error.code).toBe("forbidden");
      }
      const refusals = await entriesWhere("actor = $1 AND action = 'authorization.refused'", [`token:${name}`]);
      expect(refusals.map((r) => r.details.path).sort()).toEqual(
        ["/api/v1/audit", "/api/v1/audit/export", "/api/v1/audit/verification"].sort(),
      );
    }
    for (const [handler, path] of endpoints) expect((await call(handler, { path })).status).toBe(401);
  });

  it("lets auditor, owner and admin read", async () => {
    for (const role of ["auditor", "owner", "admin"] as const) {
      const token = await tokenFor(role);
      expect((await call(auditRoute, { token, path: "/api/v1/audit?limit=1" })).status, role).toBe(200);
      expect((await call(verificationRoute, { token, path: "/api/v1/audit/verification" })).status, role).toBe(200);
      const exported = await exportRaw("format=csv&actor=nobody", token);
      expect(exported.status, role).toBe(200);
      await exported.text();
    }
  });
});

describe("GET /api/v1/audit/export", () => {
  async function seedTricky(tag: string) {
    await append(
      [...TRICKY_REASONS, ...FORMULA_REASONS].map((reason, i) => ({
        actor: `exp-${tag}`,
        actorRole: i % 2 ? "owner" : null,
        action: "review.note",
        reviewId: i % 3 ? crypto.randomUUID() : null,
        effectKey: i % 2 ? `=eff-${tag}-${i}` : null,
        reason,
        details: i % 2 ? { reason, list: [i, -i], text: 'a,b\n"c"' } : undefined,
      })),
    );
    // Oldest first: the export's order.
    return (await walk({ actor: `exp-${tag}` }, 5)).items.reverse();
  }

  it("NDJSON: one entry per line, oldest first, equal to the list's entries", async () => {
    const tag = newTag();
    const listed = await seedTricky(tag);
    const response = await exportRaw(`format=ndjson&actor=exp-${tag}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/x-ndjson");
    const today = new Date().toISOString().slice(0, 10);
    expect([`attachment; filename="decision-log-${today}.ndjson"`]).toContain(
      response.headers.get("content-disposition"),
    );
    const text = await response.text();
    expect(text.endsWith("\n")).toBe(true);
    const lines = text.slice(0, -1).split("\n");
    expect(lines).toHaveLength(listed.length);
    expect(lines.map((line) => JSON.parse(line))).toEqual(listed);
  });

  it("CSV: a header row, then cells that read back to the same entries; formulas stay text", async () => {
    const tag = newTag();
    const listed = await seedTricky(tag);
    const response = await exportRaw(`format=csv&actor=exp-${tag}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("content-disposition")).toMatch(
      /^attachment; filename="decision-log-\d{4}-\d\d-\d\d\.csv"$/,
    );
    const text = await response.text();
    const [header, ...rows] = parseCsv(text);
    expect(header).toEqual([...FIELDS]);
    expect(rows).toHaveLength(listed.length);

    const formula = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;
    const cell = (value: unknown) => {
      if (value === null) return "";
      const s = typeof value === "string" ? value : JSON.stringify(value);
      return formula.test(s) ? `'${s}` : s;
    };
    rows.forEach((row, i) => {
      const entry = listed[i]!;
      const got = Object.fromEntries(FIELDS.map((f, j) => [f, row[j]]));
      for (const field of FIELDS) {
        if (field === "details") continue;
        expect(got[field], `${field} of seq ${entry.seq}`).toBe(
          field === "seq" ? String(entry.seq) : cell(entry[field]),
        );
      }
      // details: JSON text, one cell; formula-looking JSON cannot start a JSON object or null.
      expect(got.details === "" ? null : JSON.parse(got.details!)).toEqual(entry.details);
    });
    // Spot checks on the raw text: no cell starts with a bare formula character.
    for (const reason of FORMULA_REASONS) {
      const row = rows.find((r) => r[7] === `'${reason}`);
      expect(row, `reason ${JSON.stringify(reason)} neutralised`).toBeDefined();
    }
    for (const row of rows) for (const value of row) expect(value).not.toMatch(formula);
    expect(text).toContain(`'=HYPERLINK(""http://evil.example"",""click"")`);
  });

  it("streams a large export in chunks, complete and in order, and leaves out entries appended meanwhile", async () => {
    const tag = newTag();
    const n = 5_000;
    // One statement: the chaining trigger numbers each row.
    await sql(
      `INSERT INTO decision_log (actor, action, reason, details)
         SELECT $1, 'review.note', 'bulk ' || i, jsonb_build_object('i', i) FROM generate_series(1, $2) AS i`,
      [`bulk-${tag}`, n],
    );
    const response = await exportRaw(`format=ndjson&actor=bulk-${tag}`);
    expect(response.status).toBe(200);
    expect(response.body).toBeInstanceOf(ReadableStream);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    const chunks: string[] = [];
    const first = await reader.read();
    chunks.push(decoder.decode(first.value, { stream: true }));
    // Only the first page of EXPORT_CHUNK entries has been sent: the export pages, it does not
    // load everything first.
    expect(chunks[0]!.split("\n").length - 1).toBe(EXPORT_CHUNK);
    // Appended after the export started: not part of it.
    await sql(`INSERT INTO decision_log (actor, action, reason) VALUES ($1, 'review.note', 'late')`, [`bulk-${tag}`]);
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(decoder.decode(value, { stream: true }));
    }
    expect(chunks.length).toBeGreaterThanOrEqual(Math.ceil(n / EXPORT_CHUNK));
    const lines = chunks.join("").split("\n");
    expect(lines.pop()).toBe("");
    const entries = lines.map((line) => JSON.parse(line) as Entry);
    expect(entries).toHaveLength(n);
    expect(entries.map((e) => e.details.i)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    const numbers = seqs(entries);
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    expect(new Set(numbers).size).toBe(n);

    // The same in CSV: one header, then every entry once.
    const csv = parseCsv(await (await exportRaw(`format=csv&actor=bulk-${tag}`)).text());
    expect(csv[0]).toEqual([...FIELDS]);
    expect(csv.slice(1).map((r) => r[7])).toEqual([...Array.from({ length: n }, (_, i) => `bulk ${i + 1}`), "late"]);
  });

  it("exports an empty selection as an empty NDJSON body and a CSV with only its header", async () => {
    const tag = newTag();
    expect(await (await exportRaw(`format=ndjson&actor=none-${tag}`)).text()).toBe("");
    expect(await (await exportRaw(`format=csv&actor=none-${tag}`)).text()).toBe(`${FIELDS.join(",")}\r\n`);
  });

  it("applies every filter as the list does", async () => {
    const tag = newTag();
    const reviewId = crypto.randomUUID();
    await append(
      Array.from({ length: 6 }, (_, i) => ({
        actor: `filt-${tag}`,
        action: i % 2 ? `a-${tag}` : `b-${tag}`,
        reviewId: i < 3 ? reviewId : null,
        effectKey: `e-${tag}-${i % 3}`,
      })),
    );
    const queries: Record<string, string>[] = [
      { actor: `filt-${tag}`, action: `a-${tag}` },
      { reviewId },
      { effectKey: `e-${tag}-1` },
      { actor: `filt-${tag}`, reviewId, action: `b-${tag}` },
    ];
    for (const query of queries) {
      const listed = (await walk(query)).items.reverse();
      const text = await (await exportRaw(`format=ndjson&${new URLSearchParams(query)}`)).text();
      const exported = text
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line));
      expect(listed.length, JSON.stringify(query)).toBeGreaterThan(0);
      expect(exported, JSON.stringify(query)).toEqual(listed);
    }
  });
});

describe("GET /api/v1/audit/verification", () => {
  async function verification() {
    const answer = await call(verificationRoute, { token: auditor, path: "/api/v1/audit/verification" });
    expect(answer.status).toBe(200);
    return answer.body;
  }

  it("says ok with the number of entries when the chain is intact", async () => {
    await append([{ actor: `verify-${newTag()}`, action: "review.note" }]);
    const before = Date.now();
    const body = await verification();
    const [{ n }] = await sql(`SELECT count(*)::int AS n FROM decision_log`);
    expect(body).toEqual({ ok: true, entries: n, checkedAt: expect.any(String) });
    expect(Math.abs(Date.parse(body.checkedAt) - before)).toBeLessThan(60_000);
  });

  it("names the first broken entry after tampering, and is ok again once it is undone", async () => {
    const tag = newTag();
    const [target] = await append([
      { actor: `tamper-${tag}`, action: "review.cancel", reason: "the original reason" },
      { actor: `tamper-${tag}`, action: "review.note", reason: "after it" },
    ]);
    // As a superuser would: around the append-only trigger (see decision-log.int.test.ts).
    const rewrite = (reason: string) =>
      withClient(database.current.url, async (c) => {
        await c.query("BEGIN");
        await c.query(`ALTER TABLE decision_log DISABLE TRIGGER decision_log_append_only`);
        const { rowCount } = await c.query(`UPDATE decision_log SET reason = $1 WHERE seq = $2`, [reason, target]);
        expect(rowCount).toBe(1);
        await c.query(`ALTER TABLE decision_log ENABLE TRIGGER decision_log_append_only`);
        await c.query("COMMIT");
      });
    const [{ n }] = await sql(`SELECT count(*)::int AS n FROM decision_log`);
    await rewrite("nothing to see");
    try {
      expect(await verification()).toEqual({
        ok: false,
        entries: n,
        brokenSeq: target,
        problem: "its content does not match its hash",
        checkedAt: expect.any(String),
      });
    } finally {
      await rewrite("the original reason");
    }
    expect(await verification()).toMatchObject({ ok: true, entries: n });
  });
});
