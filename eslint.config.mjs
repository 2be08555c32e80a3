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
]);
