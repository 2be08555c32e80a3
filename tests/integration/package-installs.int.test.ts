import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

// The worker package installed as docs/consumer.md says, with npm, pnpm and yarn: `npm pack` of
// both packages (the docs' own command), then in a fresh project in a temporary folder outside
// this repository, beside the two tarballs, the docs' install line for each package manager,
// and nothing else. pnpm and yarn do not hoist, so a dependency the packages declare wrongly
// (one looked up in the registry, one used but not declared) fails here. Then the docs' example
// worker must compile (tsc, with the project's TypeScript and Node types, as a worker's own
// project would have them) and the entry points must load, with one copy of the contract and of
// zod shared by the worker and the packages. Needs the npm registry (zod, pg, redis; pnpm and
// yarn themselves through npx), nothing else.

const root = path.resolve(import.meta.dirname, "..", "..");
const guide = readFileSync(path.join(root, "docs", "consumer.md"), "utf8");

// How each is run here: pinned, and chosen for Node 20 (pnpm 11 needs Node 22; yarn's npm
// package is Yarn 1), with pnpm's store and yarn's cache kept between runs in the temporary folder.
const caches = path.join(tmpdir(), "review-console-package-managers");
const MANAGERS = {
  npm: { documented: "npm install", argv: ["npm"], cache: [] as string[] },
  pnpm: {
    documented: "pnpm add",
    argv: ["npx", "--yes", "pnpm@10.34.9"],
    cache: ["--store-dir", path.join(caches, "pnpm")],
  },
  yarn: {
    documented: "yarn add",
    argv: ["npx", "--yes", "yarn@1.22.22"],
    cache: ["--cache-folder", path.join(caches, "yarn")],
  },
};
type Manager = keyof typeof MANAGERS;

/** The section of docs/consumer.md under `## <title>`. */
function section(title: string): string {
  const start = guide.indexOf(`\n## ${title}\n`);
  expect(start, `docs/consumer.md has a section "${title}"`).toBeGreaterThanOrEqual(0);
  const end = guide.indexOf("\n## ", start + 1);
  return guide.slice(start, end < 0 ? undefined : end);
}

/** The fenced blocks of one language in a piece of Markdown. */
function blocks(markdown: string, language: string): string[] {
  return [...markdown.matchAll(new RegExp("^```" + language + "\\n([\\s\\S]*?)^```", "gm"))].map((m) => m[1]!);
}

/** The shell line of "Installing it" that starts with `prefix`: its arguments after the program's name. */
function documentedCommand(prefix: string): string[] {
  const lines = blocks(section("Installing it"), "sh")
    .flatMap((block) => block.split("\n"))
    .map((line) => line.replace(/#.*$/, "").trim())
    .filter((line) => line.startsWith(`${prefix} `));
  expect(lines, `docs/consumer.md shows one \`${prefix} ...\` line`).toHaveLength(1);
  return lines[0]!.split(/\s+/).slice(1);
}

/** A child's environment without what `npm test` (an npm script) sets for npm itself. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name))) as NodeJS.ProcessEnv;
}

function run(command: string, args: string[], cwd: string): string {
  try {
    return execFileSync(command, args, {
      cwd,
      env: cleanEnv(),
      stdio: ["ignore", "pipe", "pipe"],
      encoding: "utf8",
      timeout: 180_000,
    });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(" ")} failed in ${cwd}:\n${stdout ?? ""}\n${stderr ?? ""}`);
  }
}

// Types that cross from one package's declarations into another's (the consumer's options hold
// the contract's registry, the contract's kinds hold zod schemas): a declaration file whose import
// did not resolve leaves them unchecked, which tsc does not report under skipLibCheck, but then
// these expected errors do not occur and tsc reports that.
const TYPES_PROBE = `import type { ConsumerOptions } from "@review-console/consumer";
import type { KindDefinition } from "@review-console/contract";
// @ts-expect-error a number is not a kind registry
export const notARegistry: ConsumerOptions["registry"] = 1;
// @ts-expect-error a number is not a zod schema
export const notASchema: KindDefinition["schemas"][string] = 1;
`;

// Every entry point the example imports loads, and the worker's contract and zod are the ones
// the packages use (a second copy would hold a second registry type, a second zod).
const RUNTIME_PROBE = `import { createRequire } from "node:module";
import { realpathSync } from "node:fs";
const top = createRequire(new URL("./package.json", import.meta.url));
const where = (from, name) => realpathSync(from.resolve(name));
const contract = where(top, "@review-console/contract");
const fromConsumer = createRequire(where(top, "@review-console/consumer"));
const fromContract = createRequire(contract);
const { createConsumer } = await import("@review-console/consumer");
const { RedisStreamsTransport } = await import("@review-console/consumer/redis");
const { createKindRegistry } = await import("@review-console/contract");
console.log(JSON.stringify({
  loaded: [createConsumer, RedisStreamsTransport, createKindRegistry].every((f) => typeof f === "function"),
  oneContract: where(fromConsumer, "@review-console/contract") === contract,
  oneZod: where(fromContract, "zod") === where(top, "zod"),
}));
`;

describe("the packed worker package, installed as docs/consumer.md says", () => {
  const tarballs = mkdtempSync(path.join(tmpdir(), "rc-package-tarballs-"));
  const projects: string[] = [];

  beforeAll(() => {
    run("npm", [...documentedCommand("npm pack"), "--pack-destination", tarballs], root);
    expect(readdirSync(tarballs).sort()).toEqual([
      "review-console-consumer-0.1.0.tgz",
      "review-console-contract-0.1.0.tgz",
    ]);
  }, 180_000);

  afterAll(() => {
    for (const dir of [tarballs, ...projects]) rmSync(dir, { recursive: true, force: true });
  });

  test.each(["npm", "pnpm", "yarn"] as Manager[])(
    "with %s: installs, the example compiles, one contract and one zod",
    (name) => {
      const manager = MANAGERS[name];
      const project = mkdtempSync(path.join(tmpdir(), `rc-outside-${name}-`));
      projects.push(project);
      for (const file of readdirSync(tarballs)) copyFileSync(path.join(tarballs, file), path.join(project, file));
      writeFileSync(
        path.join(project, "package.json"),
        JSON.stringify({ name: "outside-worker", private: true, type: "module" }),
      );

      const [command, ...args] = manager.argv;
      run(command!, [...args, ...documentedCommand(manager.documented), ...manager.cache], project);

      const [example] = blocks(section("Embedding it"), "ts");
      expect(example, "docs/consumer.md has the example worker under Embedding it").toBeTruthy();
      writeFileSync(path.join(project, "worker.ts"), example!);
      writeFileSync(path.join(project, "types-probe.ts"), TYPES_PROBE);
      writeFileSync(
        path.join(project, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            target: "es2022",
            module: "nodenext",
            moduleResolution: "nodenext",
            strict: true,
            noEmit: true,
            skipLibCheck: true,
            // Node's types are the one thing a TypeScript worker adds itself; take ours.
            types: ["node"],
            typeRoots: [path.join(root, "node_modules", "@types")],
          },
          files: ["worker.ts", "types-probe.ts"],
        }),
      );
      run(process.execPath, [path.join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "."], project);

      writeFileSync(path.join(project, "probe.mjs"), RUNTIME_PROBE);
      const probe = JSON.parse(run(process.execPath, ["probe.mjs"], project).trim());
      expect(probe).toEqual({ loaded: true, oneContract: true, oneZod: true });
    },
    240_000,
  );
});
