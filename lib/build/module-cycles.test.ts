import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { fileTrees } from "../../tests/support/file-tree";

// The import cycles between the modules of lib/ (docs/decisions/0046-layers-of-lib.md). A module
// is a top-level folder of lib/ (a file directly in lib/ is a module of its own); an import is any
// static, type-only or dynamic import of "@/lib/..." or a relative path, tests and generated code
// left out. The lint rule keeps the layers apart and the modules in order (0049); this finds a cycle
// by another road, such as a file directly in lib/ that the rule does not name.

const IMPORT =
  /(?:import|export)\s+(?:type\s+)?(?:[^'"]*?\sfrom\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "generated" ? [] : sourceFiles(file);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [file] : [];
  });
}

/** lib/<module>/... or lib/<module>.ts -> the module; null outside lib/. */
function moduleOf(lib: string, file: string): string | null {
  const relative = path.relative(lib, file);
  if (relative.startsWith("..")) return null;
  const [first, ...rest] = relative.split(path.sep);
  return rest.length === 0 ? first!.replace(/\.tsx?$/, "") : first!;
}

/** Module -> the other modules it imports. */
function moduleGraph(lib: string): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sourceFiles(lib)) {
    const from = moduleOf(lib, file)!;
    const targets = graph.get(from) ?? new Set<string>();
    graph.set(from, targets);
    for (const match of readFileSync(file, "utf8").matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2]!;
      const target = specifier.startsWith("@/lib/")
        ? path.join(lib, specifier.slice("@/lib/".length))
        : specifier.startsWith(".")
          ? path.resolve(path.dirname(file), specifier)
          : null;
      const to = target && moduleOf(lib, target);
      if (to && to !== from) targets.add(to);
    }
  }
  return graph;
}

/** The cycles of `graph`: its strongly connected components of more than one module, each sorted. */
function moduleCycles(graph: Map<string, Set<string>>): string[][] {
  // Tarjan's algorithm.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles.sort((a, b) => a.join().localeCompare(b.join()));
}

/** A lib/ folder of these files. */
const lib = fileTrees("rc-cycles-");

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

  it("has none: a new cycle fails here, naming its modules", () => {
    expect(moduleCycles(moduleGraph(path.resolve("lib")))).toEqual([]);
  });
});
