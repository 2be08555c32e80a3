import path from "node:path";
import { type EmbeddedDatabase, startEmbeddedPostgres } from "./embedded";

export const TEST_DATA_DIR = path.resolve(import.meta.dirname, "../../.data/pg-test");

/**
 * The PostgreSQL server tests create their databases on: TEST_PG_SERVER_URL, else the server
 * of DATABASE_URL, else an embedded one started here (stopped by the returned function).
 */
export async function resolveTestServer(): Promise<{ serverUrl: string; stop: () => Promise<void> }> {
  const explicit = process.env.TEST_PG_SERVER_URL ?? process.env.DATABASE_URL;
  if (explicit) {
    const url = new URL(explicit);
    url.pathname = "/postgres";
    return { serverUrl: url.toString(), stop: async () => {} };
  }
  const embedded: EmbeddedDatabase = await startEmbeddedPostgres({ dataDir: TEST_DATA_DIR, fast: true });
  return { serverUrl: embedded.serverUrl, stop: () => embedded.stop() };
}
