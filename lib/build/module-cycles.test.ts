import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { moduleCycles, moduleGraph } from "./module-cycles";

const root = mkdtempSync(path.join(tmpdir(), "rc-cycles-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A lib/ folder of these files. */
function lib(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(root, "lib-"));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

describe("the module cycles of lib/", () => {
  it("finds a cycle through type-only, relative and dynamic imports, and none in a chain", () => {
    const tree = lib({
      "a/x.ts": 'import type { B } from "@/lib/b/y";\n',
      "b/y.ts": 'export const c = () => import("../c");\n',
      "c.ts": 'export { a } from "@/lib/a/x";\nexport type B = 1;\n',
      "d/z.ts": 'import { a } from "@/lib/a/x";\n',
      "d/z.test.ts": 'import { d } from "@/lib/e/w";\n',
      "e/w.ts": 'import { d } from "@/lib/d/z";\n',
    });
    expect(moduleCycles(moduleGraph(tree))).toEqual([["a", "b", "c"]]);
  });

  it("has none but the one ADR 0046 leaves: a new cycle fails here, naming its modules", () => {
    expect(moduleCycles(moduleGraph(path.resolve("lib")))).toEqual([["approvals", "operations", "reviews"]]);
  });
});
