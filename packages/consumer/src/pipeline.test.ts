import { describe, expect, it } from "vitest";
import { firstWords, handlerStatement, READ_ONLY_SQLSTATE, verifyPrimary } from "./pipeline.ts";

describe("handlerStatement", () => {
  it("refuses transaction control, also behind comments and in any case", () => {
    for (const text of [
      "COMMIT",
      "  commit;",
      "/* a */ /* b /* nested */ */ ROLLBACK",
      "-- a comment\nBEGIN",
      "end",
      "SAVEPOINT s1",
      "release savepoint s1",
      "PREPARE TRANSACTION 'x'",
      "START TRANSACTION",
      "ABORT",
    ]) {
      expect(() => handlerStatement(text), text).toThrow(/may not control the transaction/);
    }
  });

  it("lets every other statement through, on the extended protocol", () => {
    for (const text of [
      "INSERT INTO commit_log (v) VALUES ('COMMIT')",
      "UPDATE t SET ended = true",
      "SELECT 'BEGIN'",
      "/* COMMIT */ SELECT 1",
    ]) {
      expect(handlerStatement(text)).toEqual({ text, values: [] });
    }
  });

  it("refuses an empty statement, whose answer would be no result at all", () => {
    expect(() => handlerStatement("  -- nothing\n")).toThrow("empty");
  });

  it("names the parameter that cannot be stored", () => {
    expect(() => handlerStatement("SELECT $1, $2", ["ok", "x\u0000"])).toThrow("parameter $2 contains a NUL");
    expect(() => handlerStatement("SELECT $1", [{ a: ["\ud83d"] }])).toThrow(
      "parameter $1.a[0] contains a lone surrogate",
    );
    expect(() => handlerStatement("SELECT $1", ["😀 paired surrogates are fine"])).not.toThrow();
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    expect(() => handlerStatement("SELECT $1", [loop])).toThrow("refers to itself");
    const shared = { v: 1 };
    expect(() => handlerStatement("SELECT $1", [{ a: shared, b: [shared, shared] }])).not.toThrow();
  });

  it("skips comments the way the server does", () => {
    expect(firstWords("  -- x\n  /* y */\tSELECT")).toBe("SELECT");
    expect(firstWords("-- only a comment")).toBe("");
  });
});

describe("verifyPrimary", () => {
  /** A pooled client whose server answers pg_is_in_recovery() with `standby`. */
  const clientOf = (standby: boolean) =>
    ({ query: () => Promise.resolve({ rows: [{ standby }] }) }) as unknown as import("pg").PoolClient;
  const verdict = (standby: boolean) =>
    new Promise<Error | undefined>((resolve) => verifyPrimary(clientOf(standby), resolve));

  it("keeps a connection to the primary", async () => {
    expect(await verdict(false)).toBeUndefined();
  });

  it("refuses a connection that reached a standby, as the read-only error a write there would get", async () => {
    const error = await verdict(true);
    expect(error?.message).toMatch(/standby/);
    expect((error as Error & { code?: string }).code).toBe(READ_ONLY_SQLSTATE);
  });
});
