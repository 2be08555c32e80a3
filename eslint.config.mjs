import { defineConfig, globalIgnores } from "eslint/config";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

const ACCESS_FACE = {
  regex: "(^@/lib|/lib|^\\.\\.)/access/(?!client$|index$)[^/]+$",
  message: "Import lib/access through its face: @/lib/access (server) or @/lib/access/client.",
};

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
  {
    name: "modules",
    folders: [
      "access",
      "approvals",
      "audit",
      "auth",
      "domains",
      "notifications",
      "operations",
      "overview",
      "replays",
      "retention",
      "reviews",
      "seed",
      "tokens",
      "users",
      "views",
    ],
  },
  { name: "http", folders: ["http", "openapi"] },
  { name: "server", folders: ["server"] },
];

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
  // A layer imports only the layers below it, so no import cycle runs through two of them.
  ...LAYERS.slice(0, -1).flatMap((layer, i) => {
    const files = [`lib/{${layer.folders.join(",")}}/**`, ...layer.folders.map((f) => `lib/${f}.ts`)];
    const above = {
      regex: `(^@/lib/|^(\\.\\./)+)(${LAYERS.slice(i + 1)
        .flatMap((l) => l.folders)
        .join("|")})(/|$)`,
      message: `The ${layer.name} layer of lib/ may not import a layer above it (docs/decisions/0046-layers-of-lib.md).`,
    };
    return [
      { files, rules: { "no-restricted-imports": restrictImports([ACCESS_FACE, above]) } },
      {
        files: ["lib/access/**"].filter(() => layer.folders.includes("access")),
        rules: { "no-restricted-imports": restrictImports([above]) },
      },
    ].filter((block) => block.files.length > 0);
  }),
]);
