import { defineConfig, globalIgnores } from "eslint/config";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

const ACCESS_FACE = {
  regex: "(^@/lib|/lib|^\\.\\.)/access/(?!client$|index$)[^/]+$",
  message: "Import lib/access through its face: @/lib/access (server) or @/lib/access/client.",
};

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
  // A module with a face is imported through it, never by a deep path: lib/access through its
  // index (the server's) or client.ts (the isomorphic part) (docs/decisions/0037-one-access-module.md).
  { ignores: ["lib/access/**"], rules: { "no-restricted-imports": restrictImports([ACCESS_FACE]) } },
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
      return [{ files, rules: { "no-restricted-imports": restrictImports([ACCESS_FACE, above]) } }];
    }
    return MODULES.map((module, m) => {
      const later = MODULES.slice(m + 1);
      const after = {
        regex: folderImport(later),
        message: `lib/${module} may import only the modules before it in eslint.config.mjs's MODULES, so that no two modules form a cycle (docs/decisions/0049-modules-in-order.md).`,
      };
      const patterns = [...(module === "access" ? [] : [ACCESS_FACE]), above, ...(later.length ? [after] : [])];
      return { files: [`lib/${module}/**`], rules: { "no-restricted-imports": restrictImports(patterns) } };
    });
  }),
]);
