import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { entryHash, formatEntryTime, quoteNullable } from "./verify";

// The Node copy of decision_log_entry_hash(). Its agreement with the SQL function on real
// values is proven against PostgreSQL in tests/integration/decision-log-trust.int.test.ts.

describe("quoteNullable, as PostgreSQL's quote_nullable()", () => {
  it.each([
    [null, "NULL"],
    ["", "''"],
    ["NULL", "'NULL'"],
    ["it's", "'it''s'"],
    ["a\\b", "E'a\\\\b'"],
    ["'\\'", "E'''\\\\'''"],
    ["żółw 🐢", "'żółw 🐢'"],
    ['{"a": "x\\"y"}', `E'{"a": "x\\\\"y"}'`],
  ])("%j -> %s", (value, quoted) => {
    expect(quoteNullable(value)).toBe(quoted);
  });
});

describe("formatEntryTime, as to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')", () => {
  it.each([
    ["1796115600.123456", "2026-12-01T09:00:00.123456Z"],
    ["1796115600.000000", "2026-12-01T09:00:00.000000Z"],
    ["1796115600.000001", "2026-12-01T09:00:00.000001Z"],
    ["1796115600", "2026-12-01T09:00:00.000000Z"],
    ["0.000000", "1970-01-01T00:00:00.000000Z"],
    ["-0.500000", "1969-12-31T23:59:59.500000Z"],
    ["-62135596800.000000", "0001-01-01T00:00:00.000000Z"],
    ["253402300800.000000", "10000-01-01T00:00:00.000000Z"],
  ])("%s -> %s", (epoch, text) => {
    expect(formatEntryTime(epoch)).toBe(text);
  });

  it("refuses what no append can have", () => {
    expect(() => formatEntryTime("Infinity")).toThrow();
    expect(() => formatEntryTime("-62135596801.000000")).toThrow("out of range");
  });
});

describe("entryHash", () => {
  it("hashes concat_ws('|', ...) of the quoted fields in UTF-8", () => {
    const fields = {
      prevHash: "0".repeat(64),
      seq: "1",
      atEpoch: "1796115600.123456",
      actor: "owner@example.test",
      actorRole: null,
      action: "review.cancel",
      reviewId: "7d1c1a52-3b1e-4c55-9a43-1c1f2c3d4e5f",
      effectKey: "",
      reason: "it's paid",
      details: '{"i": 1}',
    };
    const text =
      `${"0".repeat(64)}|1|2026-12-01T09:00:00.123456Z|'owner@example.test'|NULL|'review.cancel'|` +
      `'7d1c1a52-3b1e-4c55-9a43-1c1f2c3d4e5f'|''|'it''s paid'|'{"i": 1}'`;
    expect(entryHash(fields)).toBe(createHash("sha256").update(text, "utf8").digest("hex"));
    // NULL and '' differ.
    expect(entryHash({ ...fields, effectKey: null })).not.toBe(entryHash(fields));
  });
});
