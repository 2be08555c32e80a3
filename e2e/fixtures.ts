/**
 * Shared Playwright fixtures: import `test` and `expect` from here instead of @playwright/test.
 *
 * - `server` (one per worker): a fresh database on the test PostgreSQL server (TEST_PG_SERVER_URL,
 *   which `npm test` sets; else DATABASE_URL's server, else an embedded one), migrated, and a
 *   `next start` of the current build (`npx next build` first) on a free port of 127.0.0.1,
 *   connected as a runtime role of its own (lib/db/roles.ts), so every spec also proves that
 *   role's grants suffice. `databaseUrl` (setup and assertions) stays the superuser's.
 *   `baseURL` is set to it, so `page.goto("/reviews")` works.
 * - `createPerson(role)`: a new person of that role (via createUser, like `user add`), not signed in.
 * - `loginAs(role)`: such a person, signed in on `page` (its browser context holds the session
 *   cookie). Signs in through the API, each time from a client address of its own, so specs do
 *   not use up the login rate limit (5 per minute per address) that the UI sign-ins share.
 *
 * Every test of a worker shares its server and database: make data unique per test.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import path from "node:path";
import { type Page, test as base, expect } from "@playwright/test";
import pg from "pg";
import type { PersonRole } from "@/lib/access/client";
import { migrate } from "../lib/db/migrate";
import { ensureRuntimeRole, withCredentials } from "../lib/db/roles";
import { resolveTestServer } from "../testing/db/test-server";
import { freePort, waitForHealth } from "../lib/net/local-server";
import { withConnection } from "../lib/db/connection";

export { expect };

export interface TestServer {
  /** `http://127.0.0.1:<port>` */
  baseURL: string;
  /** The server's own database, for setting up data or checking what a test wrote. */
  databaseUrl: string;
}

export interface Credentials {
  email: string;
  password: string;
}

interface Fixtures {
  createPerson: (role: PersonRole) => Promise<Credentials>;
  loginAs: (role: PersonRole) => Promise<Credentials>;
}

const root = path.resolve(import.meta.dirname, "..");

/** Stops the server's whole process group (`next start` and its next-server child). */
export async function stopServer(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (!child.pid || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  process.kill(-child.pid, signal);
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // already gone
    }
  }, 10_000);
  await exited;
  clearTimeout(timer);
}

export interface RunningServer {
  baseURL: string;
  child: ChildProcess;
}

/**
 * The console as `npm start` serves it (scripts/serve.ts: the current build behind our own
 * node:http server) on a free port of 127.0.0.1 against `databaseUrl`, once its health check
 * answers. Its own process group, so stopServer stops all of it. `env` adds to or overrides the
 * server's environment (`undefined` removes a variable); as a function it gets the server's
 * base URL first (for settings that name it, like BETTER_AUTH_URL).
 */
export async function startServer(
  databaseUrl: string,
  secret: string,
  env: Record<string, string | undefined> | ((baseURL: string) => Record<string, string | undefined>) = {},
): Promise<RunningServer> {
  const port = await freePort();
  const baseURL = `http://127.0.0.1:${port}`;
  const extraEnv = typeof env === "function" ? env(baseURL) : env;
  let output = "";
  const serve = path.join(root, "scripts", "serve.ts");
  const child = spawn(process.execPath, ["--import", "tsx", serve, "-H", "127.0.0.1", "-p", String(port)], {
    cwd: root,
    detached: true,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      // A key of its own, so the server writes nothing into .data/.
      BETTER_AUTH_SECRET: secret,
      // This process, on 127.0.0.1, stands in for a proxy: the server then takes the client
      // address from X-Forwarded-For, so each loginAs gets a login budget of its own. (The
      // browser's sign-ins send none: Next sets 127.0.0.1, a trusted proxy, so they share
      // one budget, as login.spec.ts expects.)
      TRUSTED_PROXIES: "127.0.0.1",
      // The webhook receivers specs start listen on this machine, which the default refuses.
      WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8",
      NEXT_TELEMETRY_DISABLED: "1",
      LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
      ...extraEnv,
    },
  });
  child.stdout?.on("data", (d) => (output += d));
  child.stderr?.on("data", (d) => (output += d));
  try {
    await waitForHealth(baseURL, child, () => output, { timeoutMs: 60_000, label: "the console server" });
  } catch (error) {
    await stopServer(child);
    throw error;
  }
  return { baseURL, child };
}

/**
 * A runtime role of its own for one test database (roles are cluster-wide, hence the random
 * name), granted as `npm start` grants review_console_app; `url` connects to `databaseUrl` as it.
 * `drop` removes it once the database is gone (its grants went with the database).
 */
export async function createRuntimeRole(
  databaseUrl: string,
): Promise<{ name: string; url: string; drop: () => Promise<void> }> {
  const name = `rc_e2e_app_${randomBytes(4).toString("hex")}`;
  // The embedded test server checks passwords; a server with trust auth ignores it.
  const password = randomBytes(18).toString("base64url");
  await ensureRuntimeRole(databaseUrl, { name, password });
  const serverUrl = new URL(databaseUrl);
  serverUrl.pathname = "/postgres";
  return {
    name,
    url: withCredentials(databaseUrl, name, password),
    drop: async () => {
      await withConnection(serverUrl.toString(), (c) => c.query(`DROP ROLE IF EXISTS ${pg.escapeIdentifier(name)}`));
    },
  };
}

/**
 * Console errors, uncaught page errors and Content-Security-Policy violations of `page` from its
 * next document on, as they happen (the list fills while the test runs): call it before the
 * first `goto`, then expect the list to be empty.
 */
export async function watchConsole(page: Page): Promise<string[]> {
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error" || /Content[- ]Security[- ]Policy/i.test(message.text())) {
      errors.push(message.text());
    }
  });
  page.on("pageerror", (error) => errors.push(error.message));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI} at ${event.sourceFile}`);
    });
  });
  return errors;
}

let clientAddress = 0;
/** A client address (TEST-NET-2) for one API sign-in; see loginAs. */
function nextClientAddress(workerIndex: number): string {
  clientAddress += 1;
  return `198.51.${100 + (workerIndex % 100)}.${(clientAddress % 250) + 1}`;
}

export const test = base.extend<Fixtures, { server: TestServer }>({
  server: [
    // (`provide` is Playwright's `use`, renamed so React's hook lint leaves it alone.)
    async ({}, provide, workerInfo) => {
      if (!existsSync(path.join(root, ".next", "BUILD_ID"))) {
        throw new Error("no production build: run `npx next build` before the e2e specs (npm test does)");
      }
      const pgServer = await resolveTestServer();
      const name = `rc_e2e_${workerInfo.workerIndex}_${randomBytes(4).toString("hex")}`;
      const databaseUrl = new URL(pgServer.serverUrl);
      databaseUrl.pathname = `/${name}`;
      await withConnection(pgServer.serverUrl, (c) => c.query(`CREATE DATABASE ${name}`));
      // createPerson runs createUser in this worker process: it must use the same database.
      process.env.DATABASE_URL = databaseUrl.toString();

      let child: ChildProcess | undefined;
      let runtimeRole: Awaited<ReturnType<typeof createRuntimeRole>> | undefined;
      try {
        await migrate(databaseUrl.toString());
        const role = await createRuntimeRole(databaseUrl.toString());
        runtimeRole = role;
        const server = await startServer(role.url, randomBytes(32).toString("base64url"));
        child = server.child;
        // The health check answered through the pool: its connection shows whose it is.
        const asRole = await withConnection(pgServer.serverUrl, async (c) => {
          const { rows } = await c.query(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND usename = $2",
            [name, role.name],
          );
          return rows[0].n as number;
        });
        expect(asRole, "next start connects as the runtime role").toBeGreaterThan(0);
        await provide({ baseURL: server.baseURL, databaseUrl: databaseUrl.toString() });
      } finally {
        if (child) await stopServer(child);
        const { closeDb } = await import("../lib/db/client");
        await closeDb();
        await withConnection(pgServer.serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
        // After the database: DROP ROLE refuses while a database still holds grants to it.
        await runtimeRole?.drop();
        await pgServer.stop();
      }
    },
    { scope: "worker", timeout: 120_000 },
  ],

  baseURL: async ({ server }, provide) => {
    await provide(server.baseURL);
  },

  createPerson: async ({ server }, provide) => {
    await provide(async (role) => {
      // Loaded on first use: the Prisma client only when a spec needs people.
      const { createUser } = await import("../lib/users/create-user");
      const email = `${role}-${randomBytes(5).toString("hex")}@e2e.local`;
      const password = randomBytes(12).toString("base64url");
      expect(process.env.DATABASE_URL, "people go into the server's database").toBe(server.databaseUrl);
      const result = await createUser({ email, role, password }, "system:e2e");
      if (!result.ok) throw new Error(`could not create ${email}: ${result.reason}`);
      return { email, password };
    });
  },

  loginAs: async ({ page, server, createPerson }, provide, testInfo) => {
    await provide(async (role) => {
      const person = await createPerson(role);
      const response = await page.request.post(`${server.baseURL}/api/auth/sign-in/email`, {
        data: { email: person.email, password: person.password },
        headers: { origin: server.baseURL, "x-forwarded-for": nextClientAddress(testInfo.workerIndex) },
      });
      if (!response.ok()) {
        throw new Error(`signing in ${person.email} failed: ${response.status()} ${await response.text()}`);
      }
      return person;
    });
  },
});
