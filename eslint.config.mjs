import { defineConfig, globalIgnores } from "eslint/config";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

/**
 * The modules of lib/'s middle layer, in order: each may import only the modules before it, so no
 * two modules import each other, directly or round a cycle (docs/decisions/0049-modules-in-order.md).
 * A module that needs one after it moves below it, or the code that needs both moves up.
 */
const MODULES = [
  "access",
  "audit",
  "reviews",
  "approvals",
  "operations",
  "actions",
  "replays",
  "auth",
  "domains",
  "retention",
  "notifications",
  "overview",
  "tokens",
  "users",
  "views",
  "seed",
];

/** Each layer of lib/, lowest first: its top-level folders (or files, as lib/log.ts). */
const LAYERS = [
  {
    name: "platform",
    folders: [
      "build",
      "client",
      "config",
      "db",
      "domain",
      "failure-backoff",
      "generated",
      "log",
      "metrics",
      "net",
      "stdio-guard",
      "time-zone",
    ],
  },
  { name: "modules", folders: MODULES },
  { name: "http", folders: ["http", "openapi"] },
  { name: "server", folders: ["server"] },
];

/**
 * Every module is imported through its face: lib/<module>/index.ts (the server's) or, for the
 * part a browser may hold, lib/<module>/client.ts (docs/decisions/0049-modules-in-order.md). Its
 * other files are its own business; inside the module they import each other directly.
 */
function facesOf(modules) {
  return {
    regex: `(^@/lib|/lib|^\\.\\.)/(${modules.join("|")})/(?!(index|client)$).+$`,
    message: "Import a module of lib/ through its face: @/lib/<module> (server) or @/lib/<module>/client.",
  };
}

/** An import of one of these top-level folders of lib/, by `@/lib/` or by a relative path. */
function folderImport(folders) {
  return `(^@/lib/|^(\\.\\./)+)(${folders.join("|")})(/|$)`;
}

/** no-restricted-imports with these patterns (a later block's rule replaces an earlier one's). */
function restrictImports(patterns) {
  return ["error", { patterns }];
}

export default defineConfig([
  ...nextVitals,
  ...nextTs,
  globalIgnores([
    ".next/**",
    ".data/**",
    "lib/generated/**",
    "packages/*/dist/**",
    "next-env.d.ts",
    "e2e/screenshots/**",
  ]),
  {
    rules: {
      // Tests read loosely typed JSON answers; production code keeps `any` out.
      "@typescript-eslint/no-explicit-any": "off",
    },
  },
  // Outside lib/'s modules, every module is imported through its face (below: inside one, every other).
  { rules: { "no-restricted-imports": restrictImports([facesOf(MODULES)]) } },
  // The layers of lib/ (docs/decisions/0046-layers-of-lib.md): platform <- modules <- http <- server.
  // A layer imports only the layers below it, so no import cycle runs through two of them; inside
  // the modules layer, a module imports only the modules before it in MODULES.
  ...LAYERS.slice(0, -1).flatMap((layer, i) => {
    const above = {
      regex: folderImport(LAYERS.slice(i + 1).flatMap((l) => l.folders)),
      message: `The ${layer.name} layer of lib/ may not import a layer above it (docs/decisions/0046-layers-of-lib.md).`,
    };
    if (layer.name !== "modules") {
      const files = [`lib/{${layer.folders.join(",")}}/**`, ...layer.folders.map((f) => `lib/${f}.ts`)];
      return [{ files, rules: { "no-restricted-imports": restrictImports([facesOf(MODULES), above]) } }];
    }
    return MODULES.map((module, m) => {
      const later = MODULES.slice(m + 1);
      const after = {
        regex: folderImport(later),
        message: `lib/${module} may import only the modules before it in eslint.config.mjs's MODULES, so that no two modules form a cycle (docs/decisions/0049-modules-in-order.md).`,
      };
      const others = MODULES.filter((other) => other !== module);
      const patterns = [facesOf(others), above, ...(later.length ? [after] : [])];
      return { files: [`lib/${module}/**`], rules: { "no-restricted-imports": restrictImports(patterns) } };
    });
  }),
]);
