import { readFileSync } from "node:fs";
import path from "node:path";
import { type EmbeddedDatabase, embeddedDatabaseUrl, ensureDatabase, startEmbeddedPostgres } from "./embedded";

/** Local state (embedded PostgreSQL, demo credentials): `.data/` unless REVIEW_CONSOLE_DATA_DIR says. */
export const DATA_DIR = path.resolve(
  process.env.REVIEW_CONSOLE_DATA_DIR ?? path.join(import.meta.dirname, "../../.data"),
);
/** Where `npm start` keeps its embedded PostgreSQL when no DATABASE_URL is given. */
export const LOCAL_DATA_DIR = path.join(DATA_DIR, "pg");
export const LOCAL_DATABASE = "review_console";

/** The port of an embedded server already running on `dataDir`, read from its postmaster.pid. */
export function runningEmbeddedPort(dataDir = LOCAL_DATA_DIR): number | null {
  try {
    const lines = readFileSync(path.join(dataDir, "postmaster.pid"), "utf8").split("\n");
    const pid = Number(lines[0]);
    const port = Number(lines[3]);
    process.kill(pid, 0); // throws when no such process: a stale pid file
    return Number.isInteger(port) && port > 0 ? port : null;
  } catch {
    return null;
  }
}

export interface LocalDatabase {
  url: string;
  embedded: boolean;
  /** Stops the embedded server if this process started it. */
  release(): Promise<void>;
}

/**
 * DATABASE_URL when set; else the embedded server under .data/pg — joined when `npm start`
 * already runs it (so the CLI works beside a running console), started otherwise.
 */
export async function localDatabase(log?: (line: string) => void): Promise<LocalDatabase> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, embedded: false, release: async () => {} };
  const port = runningEmbeddedPort();
  let server: EmbeddedDatabase | null = null;
  let url: string;
  if (port) {
    url = embeddedDatabaseUrl(port, LOCAL_DATABASE);
  } else {
    server = await startEmbeddedPostgres({ dataDir: LOCAL_DATA_DIR, log });
    url = server.databaseUrl(LOCAL_DATABASE);
  }
  await ensureDatabase(url);
  return { url, embedded: true, release: async () => server?.stop() };
}
