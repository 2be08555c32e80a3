import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, inject } from "vitest";
import { closeDb } from "@/lib/db/client";
import { withConnection } from "@/lib/db/connection";

export interface TestDatabase {
  url: string;
  name: string;
}

function withAdmin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  return withConnection(inject("pgServerUrl"), fn);
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `rc_test_${randomBytes(6).toString("hex")}`;
  await withAdmin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${inject("templateDatabase")}`));
  const url = new URL(inject("pgServerUrl"));
  url.pathname = `/${name}`;
  return { url: url.toString(), name };
}

export async function dropTestDatabase(db: TestDatabase): Promise<void> {
  await withAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${db.name} WITH (FORCE)`));
}

/** Gives the test file a fresh migrated database and points the app's client at it. */
export function setupTestDatabase(): { current: TestDatabase } {
  const holder = {} as { current: TestDatabase };
  beforeAll(async () => {
    holder.current = await createTestDatabase();
    process.env.DATABASE_URL = holder.current.url;
  });
  afterAll(async () => {
    await closeDb();
    await dropTestDatabase(holder.current);
  });
  return holder;
}

/** A direct connection for assertions the app's API does not expose (row counts, tampering). */
export async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
