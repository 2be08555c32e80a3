import "dotenv/config";
// The whole configuration, checked before the modules below load (a bad variable ends the
// process, exit code 2, every one named).
import "@/lib/server/start-check";
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { closeDb } from "@/lib/db/client";
import { LOCAL_RUNTIME_ROLE, localDatabase, localRuntimePassword, migrationDatabaseUrl } from "@/lib/db/local";
import { migrate } from "@/lib/db/migrate";
import { reportMessage, runMain } from "./run-main";
import { ensureRuntimeRole, refreshRuntimeGrants, withCredentials } from "@/lib/db/roles";
import type { DemoCredentials } from "@/lib/seed";
import { DEMO_CREDENTIALS_FILE, demoCredentials } from "@/lib/seed";

// `npm start`: a database (DATABASE_URL, or an embedded PostgreSQL under .data/), migrations
// (as MIGRATION_DATABASE_URL's owner when set), the demo set on an empty embedded database (or
// with --demo), a build if there is none (next build, then scripts/build-standalone.ts, as
// `npm run build`), then the console (scripts/serve.ts) on 127.0.0.1 unless HOST says otherwise,
// connected as the runtime role: DATABASE_URL's user, or on the embedded database the role
// review_console_app made here (lib/db/roles.ts).

const root = path.resolve(import.meta.dirname, "..");
const nextBin = createRequire(import.meta.url).resolve("next/dist/bin/next");
const port = process.env.PORT ?? "3000";
const host = process.env.HOST ?? "127.0.0.1";
const wantsDemo = process.argv.includes("--demo");

function printCredentials(url: string, credentials: DemoCredentials): void {
  console.log(`\nDemo sign-ins (also in ${path.relative(process.cwd(), DEMO_CREDENTIALS_FILE)}):`);
  for (const u of credentials.users) console.log(`  ${u.role.padEnd(8)} ${u.email.padEnd(20)} ${u.password}`);
  console.log("Demo API tokens:");
  for (const t of credentials.tokens) console.log(`  ${t.role.padEnd(8)} ${t.token}`);
  const owner = credentials.tokens.find((t) => t.role === "owner");
  if (owner) console.log(`\nTry: curl -H "Authorization: Bearer ${owner.token}" ${url}/api/v1/reviews`);
}

async function main(): Promise<number> {
  if (process.env.MIGRATION_DATABASE_URL && !process.env.DATABASE_URL) {
    console.error("error: MIGRATION_DATABASE_URL is set but DATABASE_URL (the runtime role's connection) is not");
    return 1;
  }
  const database = await localDatabase();
  // The owner's connection: migrations and the demo set. The console gets `runtimeUrl`.
  const ownerUrl = migrationDatabaseUrl(database.url);
  process.env.DATABASE_URL = ownerUrl;
  try {
    const result = await migrate(ownerUrl);
    for (const name of result.applied) console.log(`migration applied: ${name}`);
    let runtimeUrl = database.url;
    if (database.embedded) {
      // Zero setup, least privilege anyway: the embedded superuser migrates, the console runs
      // as a role that can only append to the decision log (grants renewed at every start, so
      // a new migration's tables are covered).
      const password = await localRuntimePassword();
      await ensureRuntimeRole(ownerUrl, { name: LOCAL_RUNTIME_ROLE, password });
      runtimeUrl = withCredentials(database.url, LOCAL_RUNTIME_ROLE, password);
    } else if (ownerUrl !== database.url) {
      const grants = await refreshRuntimeGrants(ownerUrl, database.url);
      if ("skipped" in grants) console.log(`runtime grants not refreshed: ${grants.skipped}`);
    }
    const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
    if (database.embedded || wantsDemo) {
      const credentials = await demoCredentials(true);
      if (credentials) printCredentials(url, credentials);
      else if (wantsDemo) {
        console.log(
          `\n--demo: the database is not empty and ${path.relative(process.cwd(), DEMO_CREDENTIALS_FILE)} ` +
            "does not exist, so no demo set was seeded and there are no demo sign-ins to print",
        );
      }
    }
    await closeDb();

    if (!existsSync(path.join(root, ".next", "BUILD_ID"))) {
      console.log("\nNo build yet: running next build (once)…");
      const build = spawnSync(process.execPath, [nextBin, "build"], {
        cwd: root,
        stdio: "inherit",
        env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
      });
      if (build.status !== 0) return build.status ?? 1;
      // The same output `npm run build` makes: the standalone folder the container image runs.
      const bundle = path.join(root, "scripts", "build-standalone.ts");
      const standalone = spawnSync(process.execPath, ["--import", "tsx", bundle], { cwd: root, stdio: "inherit" });
      if (standalone.status !== 0) return standalone.status ?? 1;
    }

    console.log(`\nReview Console on ${url} (database: ${database.embedded ? "embedded, .data/pg" : "DATABASE_URL"})`);
    // The console's own server (scripts/serve.ts: Next behind node:http, which passes each
    // request's socket address on for the sign-in limit). Its own process group, so stopping it
    // stops everything it started.
    const server = spawn(
      process.execPath,
      ["--import", "tsx", path.join(root, "scripts", "serve.ts"), "-H", host, "-p", port],
      {
        cwd: root,
        stdio: "inherit",
        detached: true,
        // MIGRATION_DATABASE_URL stays out of the console's environment: it never needs the owner.
        env: {
          ...process.env,
          DATABASE_URL: runtimeUrl,
          MIGRATION_DATABASE_URL: undefined,
          NEXT_TELEMETRY_DISABLED: "1",
        },
      },
    );
    const stop = () => {
      if (server.pid) {
        try {
          process.kill(-server.pid, "SIGTERM");
        } catch {
          // already gone
        }
      }
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
    return await new Promise<number>((resolve) => server.on("exit", (code) => resolve(code ?? 0)));
  } finally {
    await closeDb();
    await database.release();
  }
}

runMain(main, reportMessage);
