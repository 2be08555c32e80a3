import { describe, expect, it } from "vitest";
import { inlineParameters, literal } from "./sql-inline";

describe("inlineParameters", () => {
  it("writes each parameter as the literal node-postgres would send", () => {
    const date = new Date("2026-11-30T04:00:00.000Z");
    expect(
      inlineParameters("INSERT INTO t VALUES ($1, $2, $3, $4, $5, $6, $1)", ["it's", 42, null, true, date, { a: [1] }]),
    ).toBe(`INSERT INTO t VALUES ('it''s', '42', NULL, 'true', '2026-11-30T04:00:00.000Z', '{"a":[1]}', 'it''s')`);
  });

  it("quotes backslashes the PostgreSQL way", () => {
    expect(literal("C:\\temp")).toBe(" E'C:\\\\temp'");
  });

  it("leaves $n alone inside strings, identifiers, comments and dollar quotes", () => {
    const text = `SELECT '$1', E'\\'$1', "col$1", $$ $1 $$, $body$ $2 $body$ -- $1
      /* $1 /* nested $2 */ $1 */, $1, x$1`;
    expect(inlineParameters(text, ["v"])).toBe(
      `SELECT '$1', E'\\'$1', "col$1", $$ $1 $$, $body$ $2 $body$ -- $1
      /* $1 /* nested $2 */ $1 */, 'v', x$1`,
    );
  });

  it("writes arrays as array literals and refuses a missing parameter or a NUL", () => {
    // The array text holds a backslash (escaping the quote), so the literal is an E'' string.
    expect(inlineParameters("SELECT $1::text[]", [["a", 'b"c', null]])).toBe(`SELECT  E'{"a","b\\\\"c",NULL}'::text[]`);
    expect(() => inlineParameters("SELECT $2", ["a"])).toThrow("$2 has no parameter");
    expect(() => inlineParameters("SELECT $1", ["a\u0000b"])).toThrow("NUL");
  });
});
