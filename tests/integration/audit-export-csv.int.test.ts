import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { GET as exportRoute } from "@/app/api/v1/audit/export/route";
import { POST as act } from "@/app/api/v1/reviews/[id]/actions/route";
import { POST as report } from "@/app/api/v1/reviews/route";
import { appendStandaloneDecision, AUDIT_ENTRY_FIELDS } from "@/lib/audit";
import { call, tokenFor } from "../support/http";
import { setupTestDatabase } from "../support/database";

// The CSV export once carried formulas. With CRLF as the record delimiter, csv-stringify
// left a bare LF or CR unquoted, so `note\n=cmd|' /C calc'!A0` split its row and the new row
// began with a formula. Here a real CSV parser (csv-parse, RFC 4180) reads the export back.

setupTestDatabase();

const CELL_COUNT = AUDIT_ENTRY_FIELDS.length;
const REASON = AUDIT_ENTRY_FIELDS.indexOf("reason");
const EFFECT_KEY = AUDIT_ENTRY_FIELDS.indexOf("effectKey");
/** What a spreadsheet would start a formula (or DDE) with, leading white space trimmed. */
const FORMULA_START = /^[\s\u3000]*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20]|^[\t\r]/;

const HOSTILE = [
  "note\n=cmd|' /C calc'!A0",
  "ok\r+1+2",
  '\r+HYPERLINK("http://evil.example")',
  "@SUM(A1:A2)",
  "-2+3",
  "\t=1+1",
  "\n=1+1",
  "two lines\n@x\rand a CR",
  'quotes "=1", commas, =2',
];

/**
 * As a spreadsheet reads it: any line break outside quotes ends a row (csv-parse alone would take
 * the first one it meets, CRLF here, as the only one), and a short or long row is kept, not an error.
 */
const readCsv = (text: string) =>
  parse(text, { record_delimiter: ["\r\n", "\n", "\r"], relax_column_count: true }) as string[][];

async function exportCsv(actorFilter: string): Promise<string> {
  const token = await tokenFor("auditor");
  const response = await exportRoute(
    new Request(`http://localhost/api/v1/audit/export?format=csv&actor=${encodeURIComponent(actorFilter)}`, {
      headers: { authorization: `Bearer ${token}` },
    }),
    { params: Promise.resolve({}) },
  );
  expect(response.status).toBe(200);
  return response.text();
}

async function exportNdjson(actorFilter: string): Promise<any[]> {
  const token = await tokenFor("auditor");
  const response = await exportRoute(
    new Request(`http://localhost/api/v1/audit/export?format=ndjson&actor=${encodeURIComponent(actorFilter)}`, {
      headers: { authorization: `Bearer ${token}` },
    }),
    { params: Promise.resolve({}) },
  );
  return (await response.text())
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

/** Every row has every cell; no cell would run; each reads back to its value once the ' is dropped. */
function expectSafeRows(rows: string[][], expected: { reason: string | null; effectKey: string | null }[]) {
  const [header, ...body] = rows;
  expect(header).toEqual([...AUDIT_ENTRY_FIELDS]);
  expect(body).toHaveLength(expected.length);
  for (const row of rows) {
    expect(row, JSON.stringify(row)).toHaveLength(CELL_COUNT);
    for (const cell of row) expect(FORMULA_START.test(cell), `unneutralised cell ${JSON.stringify(cell)}`).toBe(false);
  }
  const readBack = (cell: string) => (cell.startsWith("'") ? cell.slice(1) : cell);
  body.forEach((row, i) => {
    expect(readBack(row[REASON]!)).toBe(expected[i]!.reason ?? "");
    expect(readBack(row[EFFECT_KEY]!)).toBe(expected[i]!.effectKey ?? "");
  });
}

describe("the CSV export against a real CSV parser", () => {
  it("entries of any producer with \\n=, \\r+, @, -, TAB: whole rows, no formulas; NDJSON exact", async () => {
    const actor = `csv-${Math.random().toString(36).slice(2, 10)}`;
    const written = HOSTILE.map((text, i) => ({ reason: text, effectKey: `${HOSTILE[(i + 1) % HOSTILE.length]}` }));
    for (const entry of written) {
      await appendStandaloneDecision({
        actor,
        action: "test.hostile",
        reason: entry.reason,
        effectKey: entry.effectKey,
      });
    }
    const text = await exportCsv(actor);
    const rows = readCsv(text);
    expectSafeRows(rows, written);

    const ndjson = await exportNdjson(actor);
    expect(ndjson.map((e) => ({ reason: e.reason, effectKey: e.effectKey }))).toEqual(written);
  });

  it("a consumer's effectKey and a person's note reason, through the API", async () => {
    const consumer = await tokenFor("consumer", `csv-consumer-${Math.random().toString(36).slice(2, 8)}`);
    const tag = Math.random().toString(36).slice(2, 10);
    const effectKey = `note\n=cmd|' /C calc'!A0 ${tag}`;
    const created = await call(report, {
      token: consumer,
      body: {
        category: "manual-review",
        reason: "invalid-payload",
        requiredCheck: "look",
        attempts: 1,
        message: { id: `m-${tag}`, kind: "invoice.reminder", effectKey, sequenceKey: `s-${tag}`, sequence: 1 },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const supportName = `csv-support-${tag}`;
    const support = await tokenFor("support", supportName);
    // (Reasons are trimmed, so this one starts with its +.)
    const reason = "+1 looked at it\n@SUM(A1)\r\t-2";
    const noted = await call(act, {
      token: support,
      params: { id: created.body.id },
      path: `/api/v1/reviews/${created.body.id}/actions`,
      body: { action: "note", expectedVersion: 1, reason },
    });
    expect(noted.status, JSON.stringify(noted.body)).toBe(200);

    const rows = readCsv(await exportCsv(`token:${supportName}`));
    expectSafeRows(rows, [{ reason, effectKey }]);
  });
});
