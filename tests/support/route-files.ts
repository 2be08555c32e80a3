import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { HTTP_METHODS } from "@/lib/openapi/operation";

// The route handlers of app/api as their files say them, for the test that holds the OpenAPI
// document to the code (lib/openapi/document.test.ts): which methods each route exports, and
// per method the schemas it validates with, by name and module. Read from the text, so a
// handler that parses with another schema than its definition names is seen.

export interface HandlerFacts {
  method: string;
  /** `parseQuery(request, X)`: X and the module it is imported from. */
  query: SchemaRef | null;
  /** `parseJsonBody(request, X)` or `controlRoute({ ..., body: X }, ...)`. */
  body: SchemaRef | null;
}

export interface SchemaRef {
  name: string;
  /** As imported (`@/lib/reviews/schema`). */
  module: string;
}

export interface RouteFile {
  /** Relative to the root, with `/`. */
  file: string;
  /** `/api/v1/reviews/[id]`. */
  route: string;
  handlers: HandlerFacts[];
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return walk(full);
    return /^route\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

/** `import { a, b as c } from "m"` -> a: m, c: m. */
function importedNames(text: string): Map<string, string> {
  const names = new Map<string, string>();
  for (const match of text.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+"([^"]+)"/g)) {
    for (const part of match[1]!.split(",")) {
      const local = part
        .trim()
        .split(/\s+as\s+/)
        .pop()
        ?.replace(/^type\s+/, "");
      if (local) names.set(local, match[2]!);
    }
  }
  return names;
}

/** The exported methods: `export const GET =`, `export async function POST(`, `export const { GET, POST } =`. */
export function exportedMethods(text: string): string[] {
  const methods = new Set<string>();
  for (const match of text.matchAll(/export\s+(?:const|let|var)\s+(\w+)\s*=/g)) methods.add(match[1]!);
  for (const match of text.matchAll(/export\s+(?:async\s+)?function\s+(\w+)\s*\(/g)) methods.add(match[1]!);
  for (const match of text.matchAll(/export\s+const\s+\{([^}]*)\}\s*=/g)) {
    for (const name of match[1]!.split(","))
      methods.add(
        name
          .trim()
          .split(/\s*:\s*/)
          .pop()!,
      );
  }
  return HTTP_METHODS.filter((method) => methods.has(method));
}

/** The text of one method's handler: from its export to the next top-level export. */
function handlerText(text: string, method: string): string {
  const start = text.search(new RegExp(`export\\s+(?:const|(?:async\\s+)?function)\\s+${method}\\b`));
  if (start < 0) return "";
  const next = text.slice(start + 1).search(/\nexport\s/);
  return next < 0 ? text.slice(start) : text.slice(start, start + 1 + next);
}

function schemaRef(name: string | undefined, imports: Map<string, string>): SchemaRef | null {
  if (!name) return null;
  return { name, module: imports.get(name) ?? "(defined in the route file)" };
}

export function handlerFacts(text: string, method: string): HandlerFacts {
  const imports = importedNames(text);
  const handler = handlerText(text, method);
  const control = /controlRoute\(\s*\{[^}]*\bbody:\s*(\w+)/.exec(handler);
  return {
    method,
    query: schemaRef(/parseQuery\(\s*request\s*,\s*(\w+)/.exec(handler)?.[1], imports),
    body: schemaRef(control?.[1] ?? /parseJsonBody\(\s*request\s*,\s*(\w+)/.exec(handler)?.[1], imports),
  };
}

/**
 * `export const POST = reportReview;` with reportReview imported from a module of lib/: the
 * handler is defined there (the intake handlers, which the console's own server also serves:
 * lib/http/intake-routes.ts), so its facts are read from that module's export of the name.
 */
function sharedHandler(root: string, text: string, method: string): { text: string; name: string } | null {
  const alias = new RegExp(`export\\s+const\\s+${method}\\s*=\\s*(\\w+)\\s*;`).exec(text)?.[1];
  const source = alias ? importedNames(text).get(alias) : undefined;
  if (!alias || !source?.startsWith("@/")) return null;
  const moduleText = readFileSync(path.join(root, `${source.slice(2)}.ts`), "utf8");
  return { text: moduleText, name: alias };
}

/** Every route file of app/api with its handlers. */
export function apiRouteFiles(root: string): RouteFile[] {
  const appDir = path.join(root, "app");
  return walk(path.join(appDir, "api"))
    .sort()
    .map((file) => {
      const text = readFileSync(file, "utf8");
      return {
        file: path.relative(root, file).split(path.sep).join("/"),
        route: `/${path.relative(appDir, path.dirname(file)).split(path.sep).join("/")}`,
        handlers: exportedMethods(text).map((method) => {
          const shared = sharedHandler(root, text, method);
          const facts = handlerFacts(shared?.text ?? text, shared?.name ?? method);
          return { ...facts, method };
        }),
      };
    });
}
