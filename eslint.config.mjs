import { defineConfig, globalIgnores } from "eslint/config";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

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
  {
    // A module with a face is imported through it, never by a deep path: lib/access through
    // its index (the server's) or client.ts (the isomorphic part); role-grants.ts stands apart
    // because it writes and pauses what ran on a lost grant (docs/decisions/0037-one-access-module.md).
    ignores: ["lib/access/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "(^@/lib|/lib|^\\.\\.)/access/(?!client$|role-grants$|index$)[^/]+$",
              message: "Import lib/access through its face: @/lib/access (server) or @/lib/access/client.",
            },
          ],
        },
      ],
    },
  },
]);
