import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { test, expect } from "@playwright/test";
import { hashToken, newToken } from "@/lib/auth";
import { withConnection } from "../lib/db/connection";
import { migrate } from "../lib/db/migrate";
import { resolveTestServer } from "../testing/db/test-server";
import { type RunningServer, startServer, stopServer } from "./fixtures";

// From outside: the consumer package as a team installs it. `npm pack` makes the tarballs of
// @review-console/contract and @review-console/consumer; a fresh project in a temporary folder
// outside this repository installs them with the broker clients from the registry, and a worker
// written there (e2e/outside/worker.mjs) runs against each broker, sending what it holds to a
// running console over its API. What it did is checked in PostgreSQL.

const root = path.resolve(import.meta.dirname, "..");
const npm = (args: string[], cwd: string) =>
  execFileSync("npm", args, { cwd, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8", timeout: 240_000 });

const BROKER_CLIENTS = ["redis@6.3.1", "amqplib@2.3.1", "@nats-io/jetstream@3.3.1", "@nats-io/transport-node@3.3.1"];
const TRANSPORTS = ["redis", "rabbitmq", "nats"] as const;
const BROKERS = [
  { label: "Redis", url: process.env.REDIS_URL ?? "redis://127.0.0.1:6379" },
  { label: "RabbitMQ", url: process.env.RABBITMQ_URL ?? "amqp://guest:guest@127.0.0.1:5672" },
  { label: "NATS", url: `nats://${process.env.NATS_URL ?? "127.0.0.1:4222"}` },
];

/** Whether something listens at the URL's host and port (the worker says more if it cannot talk to it). */
function answers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const settle = (up: boolean) => {
      socket.destroy();
      resolve(up);
    };
    socket.setTimeout(1000);
    socket.once("connect", () => settle(true));
    socket.once("error", () => settle(false));
    socket.once("timeout", () => settle(false));
  });
}

test("a worker in its own project installs the packed package and runs on Redis, RabbitMQ and NATS", async () => {
  test.setTimeout(600_000);
  const missing: string[] = [];
  for (const broker of BROKERS) if (!(await answers(broker.url))) missing.push(`${broker.label} at ${broker.url}`);
  // On CI a missing broker fails the test; a person's machine may run none of them (bash .ci/run starts them).
  if (missing.length && process.env.CI) throw new Error(`not reachable: ${missing.join(", ")}`);
  test.skip(missing.length > 0, `not reachable: ${missing.join(", ")} (bash .ci/run starts them)`);
  const project = mkdtempSync(path.join(tmpdir(), "rc-outside-worker-"));
  const pgServer = await resolveTestServer();
  const name = `rc_e2e_outside_${randomBytes(4).toString("hex")}`;
  const url = new URL(pgServer.serverUrl);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  const sql = async <T = Record<string, unknown>>(text: string, params: unknown[] = []) =>
    withConnection(databaseUrl, async (c) => (await c.query(text, params)).rows as T[]);
  await withConnection(pgServer.serverUrl, (c) => c.query(`CREATE DATABASE ${name}`));
  let server: RunningServer | undefined;
  try {
    npm(
      ["pack", "-w", "@review-console/contract", "-w", "@review-console/consumer", "--pack-destination", project],
      root,
    );
    const tarballs = readdirSync(project).filter((file) => file.endsWith(".tgz"));
    expect(tarballs.sort()).toEqual(["review-console-consumer-0.1.0.tgz", "review-console-contract-0.1.0.tgz"]);
    writeFileSync(
      path.join(project, "package.json"),
      JSON.stringify({ name: "outside-worker", private: true, type: "module" }),
    );
    npm(["install", "--no-audit", "--no-fund", ...tarballs.map((file) => `./${file}`), ...BROKER_CLIENTS], project);
    copyFileSync(path.join(root, "e2e", "outside", "worker.mjs"), path.join(project, "worker.mjs"));

    await migrate(databaseUrl);
    const token = newToken();
    await sql(`INSERT INTO api_tokens (name, role, token_hash, prefix) VALUES ($1, 'consumer', $2, $3)`, [
      "outside-worker",
      hashToken(token),
      token.slice(0, 12),
    ]);
    server = await startServer(databaseUrl, randomBytes(32).toString("base64url"));

    for (const transport of TRANSPORTS) {
      const run = `outside-${transport}-${randomBytes(4).toString("hex")}`;
      const output = await runWorker(project, {
        TRANSPORT: transport,
        RUN_ID: run,
        CONSOLE_URL: server.baseURL,
        CONSOLE_TOKEN: token,
        DATABASE_URL: databaseUrl,
      });
      expect(JSON.parse(output.trim().split("\n").at(-1)!), `${transport}: ${output}`).toEqual({
        applied: 20,
        review: 2,
        other: 0,
        expected: 22,
      });
      const [applied] = await sql<{ n: number }>(
        `SELECT count(*)::int AS n FROM effect_journal WHERE effect_key LIKE $1 AND state = 'applied'`,
        [`${run}-%`],
      );
      expect(applied?.n, transport).toBe(20);
      const records = await sql<{ reason: string; actor: string; transport: string }>(
        `SELECT r.reason, h.actor, r.source->>'transport' AS transport
           FROM review_records r JOIN review_history h ON h.review_id = r.id AND h.action = 'reported'
          WHERE r.message::text LIKE $1 ORDER BY r.reason`,
        [`%${run}%`],
      );
      // Reported through the API, under the worker's token.
      expect(records, transport).toEqual([
        { reason: "invalid-contract", actor: "token:outside-worker", transport: expect.any(String) },
        { reason: "invalid-contract", actor: "token:outside-worker", transport: expect.any(String) },
      ]);
    }
  } finally {
    if (server) await stopServer(server.child);
    await withConnection(pgServer.serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).catch(
      () => {},
    );
    rmSync(project, { recursive: true, force: true });
  }
});

function runWorker(cwd: string, env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["worker.mjs"], { cwd, env: { ...process.env, ...env } });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.on("exit", (code) =>
      code === 0 ? resolve(out) : reject(new Error(`worker (${env.TRANSPORT}) exited ${code}: ${err.slice(-4000)}`)),
    );
  });
}
