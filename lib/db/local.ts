import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { link, mkdir, readFile, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { config, databaseUrl } from "@/lib/config";
import { type EmbeddedDatabase, embeddedDatabaseUrl, ensureDatabase, startEmbeddedPostgres } from "./embedded";

/** Local state (embedded PostgreSQL, demo credentials): `.data/` unless REVIEW_CONSOLE_DATA_DIR says. */
export const DATA_DIR = path.resolve(config().REVIEW_CONSOLE_DATA_DIR ?? path.join(import.meta.dirname, "../../.data"));
/** Where `npm start` keeps its embedded PostgreSQL when no DATABASE_URL is given. */
export const LOCAL_DATA_DIR = path.join(DATA_DIR, "pg");
export const LOCAL_DATABASE = "review_console";
/** The role `npm start` runs the console as on the embedded database (its password: below). */
export const LOCAL_RUNTIME_ROLE = "review_console_app";
const LOCAL_RUNTIME_PASSWORD_FILE = path.join(DATA_DIR, "runtime-db-password");

/**
 * The connection migrations run with: MIGRATION_DATABASE_URL (the tables' owner) when set, else
 * `runtimeUrl`, as when one role does everything.
 */
export function migrationDatabaseUrl(runtimeUrl: string): string {
  return config().MIGRATION_DATABASE_URL ?? runtimeUrl;
}

/**
 * The embedded runtime role's password: random, made once and kept in the data dir (0600) so
 * that a restart, or a second process, connects with the same one.
 */
export async function localRuntimePassword(): Promise<string> {
  // No mode here: as root, PostgreSQL runs as `postgres` and must be able to enter DATA_DIR/pg.
  await mkdir(DATA_DIR, { recursive: true });
  // Written whole under a temporary name, then linked into place: link fails if the file exists,
  // so of two processes starting at once one wins and the other never reads a half-written file.
  const temporary = `${LOCAL_RUNTIME_PASSWORD_FILE}.${process.pid}.tmp`;
  await writeFile(temporary, `${randomBytes(24).toString("base64url")}\n`, { mode: 0o600 });
  try {
    await link(temporary, LOCAL_RUNTIME_PASSWORD_FILE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    await unlink(temporary);
  }
  const password = (await readFile(LOCAL_RUNTIME_PASSWORD_FILE, "utf8")).trim();
  if (!password) throw new Error(`${LOCAL_RUNTIME_PASSWORD_FILE} is empty; delete it to have a new one made`);
  return password;
}

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
export async function localDatabase(): Promise<LocalDatabase> {
  const given = databaseUrl();
  if (given) return { url: given, embedded: false, release: async () => {} };
  const port = runningEmbeddedPort();
  let server: EmbeddedDatabase | null = null;
  let url: string;
  if (port) {
    url = embeddedDatabaseUrl(port, LOCAL_DATABASE);
  } else {
    server = await startEmbeddedPostgres({ dataDir: LOCAL_DATA_DIR });
    url = server.databaseUrl(LOCAL_DATABASE);
  }
  await ensureDatabase(url);
  return { url, embedded: true, release: async () => server?.stop() };
}
