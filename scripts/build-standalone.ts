import { existsSync } from "node:fs";
import { cp, readdir, rm } from "node:fs/promises";
import path from "node:path";
import { build } from "esbuild";
import { reportMessage, runMain } from "./run-main";

/*
 * The step after `next build` (`npm run build`, `npm start`'s first build, `npm test`): makes
 * .next/standalone a folder that runs the console on its own, the one the Dockerfile copies.
 * - start.mjs: scripts/standalone-start.ts and what it imports in one file (migrations, runtime
 *   grants, our server), `next` left to the standalone's node_modules, which Next traced;
 * - prisma/migrations, prisma/functions, .next/static and public (Next copies none into the output);
 * - no server.js: Next's own server cannot pass the socket address on (docs/decisions/0017-deployment.md),
 *   so nobody should start it by habit;
 * - no .env: Next copies the one it loaded at build time; an image must not carry one;
 * - no .data: the build machine's local state (its session key, its database password), which
 *   Next's tracer copies when code reads a file there (next.config.js excludes it too).
 */

const root = path.resolve(import.meta.dirname, "..");
const standalone = path.join(root, ".next", "standalone");

/** The bundle's name inside the output (the Dockerfile's CMD runs it). */
export const STANDALONE_ENTRY = "start.mjs";

async function main(): Promise<number> {
  if (!existsSync(path.join(standalone, "node_modules", "next"))) {
    console.error('error: no .next/standalone with Next in it: run `next build` first (output: "standalone")');
    return 1;
  }
  await build({
    entryPoints: [path.join(root, "scripts", "standalone-start.ts")],
    outfile: path.join(standalone, STANDALONE_ENTRY),
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20.19",
    tsconfig: path.join(root, "tsconfig.json"),
    // Next stays one copy, the one its server files were traced with. pg-native is pg's optional
    // native driver, never installed here. @node-rs/argon2 (password hashes; reached through the
    // intake fast path's authentication, lib/server/intake-fast-path.ts) is a native module esbuild
    // cannot bundle; Next traces it into the standalone's node_modules as a server external.
    external: ["next", "pg-native", "@node-rs/argon2"],
    // CommonJS packages bundled into an ES module (pg) still call require for Node's built-ins.
    banner: { js: 'import { createRequire } from "node:module"; const require = createRequire(import.meta.url);' },
    legalComments: "none",
    logLevel: "warning",
  });
  const copies: [string, string][] = [
    ["prisma/migrations", "prisma/migrations"],
    ["prisma/functions", "prisma/functions"],
    [".next/static", ".next/static"],
    ["public", "public"],
  ];
  for (const [from, to] of copies) {
    const source = path.join(root, from);
    if (!existsSync(source)) continue;
    const target = path.join(standalone, to);
    await rm(target, { recursive: true, force: true });
    await cp(source, target, { recursive: true });
  }
  await rm(path.join(standalone, "server.js"), { force: true });
  for (const name of await readdir(standalone)) {
    if (name === ".env" || name.startsWith(".env.") || name === ".data") {
      await rm(path.join(standalone, name), { recursive: true, force: true });
    }
  }
  console.log(`standalone output: .next/standalone (node ${STANDALONE_ENTRY})`);
  return 0;
}

runMain(main, reportMessage);
