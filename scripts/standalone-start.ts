// First: the whole configuration, checked before the modules below load (a bad variable ends the
// process, exit code 2, every one named).
import "@/lib/server/start-check";
import { readFileSync } from "node:fs";
import path from "node:path";
import { config } from "@/lib/config";
import { migrate } from "@/lib/db/migrate";
import { refreshRuntimeGrants } from "@/lib/db/roles";
import { startConsoleServer } from "@/lib/server/console-server";
import { reportMessage, runMain } from "./run-main";

/*
 * The container's start (the Dockerfile's CMD): bundled by scripts/build-standalone.ts into
 * .next/standalone/start.mjs, which runs with nothing but that folder. Migrations as the tables'
 * owner (MIGRATION_DATABASE_URL, else DATABASE_URL), the grants of DATABASE_URL's runtime role
 * refreshed when the two differ, then the console: Next behind our own node:http server
 * (lib/server/console-server.ts), not the server.js Next writes, which cannot pass the socket address
 * on (docs/decisions/0017-deployment.md). No embedded database and no demo set: `npm start` is for those.
 */

// The bundle's own folder: the standalone output, with prisma/migrations and .next beside it.
const here = import.meta.dirname;

/** The config `next build` resolved, as Next's own standalone server.js hands it over. */
function passBuildConfig(): void {
  const manifest = JSON.parse(readFileSync(path.join(here, ".next", "required-server-files.json"), "utf8")) as {
    config: Record<string, unknown>;
  };
  // next.config.js is not in the standalone output (nor what it imports): without this Next would
  // look for it, and fall back to defaults that differ from the build's.
  process.env.__NEXT_PRIVATE_STANDALONE_CONFIG = JSON.stringify({ ...manifest.config, distDir: "./.next" });
}

function listenAddress(): { hostname: string; port: number } {
  // Checked at start (lib/config): PORT is a port.
  return { hostname: config().HOST, port: config().PORT };
}

async function main(): Promise<number> {
  const runtimeUrl = process.env.DATABASE_URL;
  if (!runtimeUrl) {
    console.error("error: DATABASE_URL is not set (postgres://… of the runtime role; docs/deploy.md)");
    return 1;
  }
  const { hostname, port } = listenAddress();
  const ownerUrl = process.env.MIGRATION_DATABASE_URL || runtimeUrl;
  const result = await migrate(
    ownerUrl,
    path.join(here, "prisma", "migrations"),
    path.join(here, "prisma", "functions"),
  );
  for (const name of result.applied) console.log(`migration applied: ${name}`);
  console.log(`migrations: ${result.applied.length} applied, ${result.alreadyApplied} already there`);
  if (ownerUrl !== runtimeUrl) {
    const grants = await refreshRuntimeGrants(ownerUrl, runtimeUrl);
    console.log("skipped" in grants ? `runtime grants not refreshed: ${grants.skipped}` : "runtime grants refreshed");
  }
  // The console never needs the owner: it runs with DATABASE_URL alone.
  delete process.env.MIGRATION_DATABASE_URL;

  // (Next's types make NODE_ENV read-only; its own standalone server.js sets it the same way.)
  Object.assign(process.env, { NODE_ENV: "production" });
  process.env.NEXT_TELEMETRY_DISABLED ??= "1";
  // Relative paths (the data folder of lib/auth/secret.ts among them) resolve inside the output.
  process.chdir(here);
  passBuildConfig();
  const server = await startConsoleServer({ dir: here, hostname, port });
  console.log(`Ready on http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`);

  return new Promise<number>((resolve) => {
    const stop = () => {
      server.close(() => resolve(0));
      server.closeIdleConnections();
      // Requests still running get a few seconds (a container stop waits 10 s before SIGKILL).
      setTimeout(() => resolve(0), 5000).unref();
    };
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
  });
}

runMain(main, reportMessage);
