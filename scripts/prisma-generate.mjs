// `prisma generate` needs no schema engine, but Prisma 7 still looks for one and would try to
// download it. A stand-in for this one command keeps it offline (never use it for `migrate`,
// where it would report a false success): docs/decisions/0002-sql-first-migrations.md.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const cli = require.resolve("prisma/build/index.js");
const standIn = process.platform === "win32" ? process.execPath : "/bin/true";
const result = spawnSync(process.execPath, [cli, "generate"], {
  stdio: ["ignore", "inherit", "inherit"],
  env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: standIn, PRISMA_HIDE_UPDATE_MESSAGE: "1" },
});
process.exit(result.status ?? 1);
