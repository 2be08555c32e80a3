import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { VARIABLE_NAMES, VARIABLES } from "./index";

// README.md's configuration table and the schema (./schema.ts) list the same variables, and the
// table shows each default the schema has.

const readme = readFileSync(path.resolve(import.meta.dirname, "../../README.md"), "utf8");

/** The table under `## Configuration`: each row's variables (its first cell's `NAME`s) and its default cell. */
function configurationTable(): { names: string[]; defaultCell: string }[] {
  const start = readme.indexOf("\n## Configuration\n");
  expect(start, "README.md has a ## Configuration section").toBeGreaterThan(0);
  const end = readme.indexOf("\n#", start + 1);
  return readme
    .slice(start, end < 0 ? undefined : end)
    .split("\n")
    .filter((line) => line.startsWith("| `"))
    .map((line) => {
      const [, first = "", defaultCell = ""] = line.split("|");
      return { names: [...first.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]!), defaultCell };
    });
}

describe("README.md's configuration table", () => {
  const rows = configurationTable();
  const listed = rows.flatMap((row) => row.names);

  it("lists every variable of the schema", () => {
    expect(VARIABLE_NAMES.filter((name) => !listed.includes(name))).toEqual([]);
  });

  it("lists no variable the schema does not have, and none twice", () => {
    expect(listed.filter((name) => !(VARIABLE_NAMES as string[]).includes(name))).toEqual([]);
    expect(listed.filter((name, i) => listed.indexOf(name) !== i)).toEqual([]);
  });

  it("shows each default the schema has", () => {
    for (const name of VARIABLE_NAMES) {
      const fallback = (VARIABLES[name] as { default?: string }).default;
      if (fallback === undefined) continue;
      const row = rows.find((r) => r.names.includes(name))!;
      expect(row.defaultCell, name).toContain(fallback);
    }
  });
});
