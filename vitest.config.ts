import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = fileURLToPath(new URL(".", import.meta.url));

// The workspace packages resolve to their sources, as tsconfig.json's paths say (Next.js and tsx
// read those paths themselves): one copy of the code, no build step before a test.
const { paths } = JSON.parse(readFileSync(path.join(root, "tsconfig.json"), "utf8")).compilerOptions as {
  paths: Record<string, [string]>;
};
const packageAliases = Object.entries(paths)
  .filter(([name]) => name.startsWith("@review-console/"))
  .map(([name, [target]]) => ({
    find: new RegExp(`^${name.replaceAll("/", "\\/")}$`),
    replacement: path.join(root, target),
  }));

export default defineConfig({
  resolve: { alias: [...packageAliases, { find: "@", replacement: root }] },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["lib/**/*.test.ts", "components/**/*.test.ts", "packages/*/src/**/*.test.ts"],
          exclude: ["**/*.int.test.ts"],
        },
      },
      {
        // React components rendered with Testing Library in happy-dom (no browser): the forms'
        // wiring of labels, hints and errors, and their keyboard paths.
        extends: true,
        test: {
          name: "components",
          include: ["components/**/*.test.tsx"],
          environment: "happy-dom",
          setupFiles: ["tests/support/component-setup.ts"],
        },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["tests/integration/**/*.int.test.ts"],
          globalSetup: ["tests/support/global-setup.ts"],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
