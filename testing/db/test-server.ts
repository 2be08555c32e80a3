import { rm } from "node:fs/promises";
import path from "node:path";
import { config, databaseUrl } from "../../lib/config";
import { type EmbeddedDatabase, startEmbeddedPostgres } from "../../lib/db/embedded";

/**
 * The PostgreSQL server tests create their databases on: TEST_PG_SERVER_URL, else the server
 * of DATABASE_URL, else an embedded one started here in a folder of its own (so two test runs
 * at once do not fight over one data directory), removed again by the returned `stop`.
 */
export async function resolveTestServer(): Promise<{ serverUrl: string; stop: () => Promise<void> }> {
  const explicit = config().TEST_PG_SERVER_URL ?? databaseUrl();
  if (explicit) {
    const url = new URL(explicit);
    url.pathname = "/postgres";
    return { serverUrl: url.toString(), stop: async () => {} };
  }
  const dataDir = path.resolve(import.meta.dirname, `../../.data/pg-test-${process.pid}`);
  const embedded: EmbeddedDatabase = await startEmbeddedPostgres({ dataDir, fast: true });
  return {
    serverUrl: embedded.serverUrl,
    stop: async () => {
      await embedded.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
