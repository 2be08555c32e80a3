import { create, type Delta } from "jsondiffpatch";

// jsondiffpatch computes the delta; the console renders it itself as a list of changes by path
// (`payload.invoiceId`), the same names the validation issues use, and never as injected HTML.

export interface JsonChange {
  path: string;
  kind: "added" | "removed" | "changed";
  before?: unknown;
  after?: unknown;
}

const differ = create({
  // Array items are matched by content, so an inserted item reads as one addition rather than
  // every later item "changed".
  objectHash: (item) => JSON.stringify(item),
  arrays: { detectMove: false },
});

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

function childPath(parent: string, key: string, inArray: boolean): string {
  if (inArray) return `${parent}[${key}]`;
  if (IDENTIFIER.test(key)) return parent ? `${parent}.${key}` : key;
  return `${parent}[${JSON.stringify(key)}]`;
}

function walk(delta: Delta, path: string, out: JsonChange[]): void {
  if (delta === undefined) return;
  const where = path || "(whole value)";
  if (Array.isArray(delta)) {
    if (delta.length === 1) out.push({ path: where, kind: "added", after: delta[0] });
    else if (delta.length === 2) out.push({ path: where, kind: "changed", before: delta[0], after: delta[1] });
    else if (delta[2] === 0) out.push({ path: where, kind: "removed", before: delta[0] });
    return;
  }
  const isArray = (delta as { _t?: unknown })._t === "a";
  for (const [key, child] of Object.entries(delta as Record<string, Delta>)) {
    if (isArray && key === "_t") continue;
    // In an array delta `_3` names an item removed from the left side at index 3.
    const name = isArray && key.startsWith("_") ? key.slice(1) : key;
    walk(child, childPath(path, name, isArray), out);
  }
}

export function jsonChanges(before: unknown, after: unknown, root = ""): JsonChange[] {
  const out: JsonChange[] = [];
  walk(differ.diff(before, after), root, out);
  return out;
}
