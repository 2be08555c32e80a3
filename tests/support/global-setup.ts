import { createHash } from "node:crypto";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { loadMigrations, migrate } from "@/lib/db/migrate";
import { resolveTestServer } from "@/testing/db/test-server";

declare module "vitest" {
  export interface ProvidedContext {
    pgServerUrl: string;
    templateDatabase: string;
  }
}

/**
 * Migrates one template database per set of migrations; each test file then clones it
 * (CREATE DATABASE .. TEMPLATE), which takes milliseconds instead of a full migration.
 */
export default async function setup(project: TestProject) {
  const server = await resolveTestServer();
  const migrations = await loadMigrations();
  const digest = createHash("sha256")
    .update(migrations.map((m) => m.checksum).join(","))
    .digest("hex");
  const template = `rc_template_${digest.slice(0, 16)}`;
  const admin = new pg.Client({ connectionString: server.serverUrl });
  await admin.connect();
  try {
    const { rowCount } = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [template]);
    if (!rowCount) {
      const building = `${template}_${process.pid}`;
      await admin.query(`CREATE DATABASE ${building}`);
      const url = new URL(server.serverUrl);
      url.pathname = `/${building}`;
      await migrate(url.toString());
      // Renamed only once complete, so a crash mid-migration never leaves a half-built template.
      await admin.query(`ALTER DATABASE ${building} RENAME TO ${template}`).catch(async (error) => {
        await admin.query(`DROP DATABASE IF EXISTS ${building}`);
        if (!String(error).includes("already exists")) throw error;
      });
    }
  } finally {
    await admin.end();
  }
  project.provide("pgServerUrl", server.serverUrl);
  project.provide("templateDatabase", template);
  return () => server.stop();
}
