import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import pg from "pg";

/** Prisma's layout: prisma/migrations/<timestamp>_<name>/migration.sql, applied in name order. */
export const MIGRATIONS_DIR = path.resolve(import.meta.dirname, "../../prisma/migrations");

/**
 * Each SQL function's current definition, one file per function (`prisma/functions/<name>.sql`,
 * `CREATE OR REPLACE FUNCTION`; docs/decisions/0044-sql-functions-in-one-place.md): applied after
 * the migrations whenever its text differs from the one last applied. Migrations keep the
 * definitions they were written with (they are checksummed history); a function's current text is
 * found here, not by searching migrations.
 */
export const FUNCTIONS_DIR = path.resolve(import.meta.dirname, "../../prisma/functions");

// Any constant works; it only has to be the same for every process that migrates.
const MIGRATION_LOCK_KEY = 727_001;

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

/**
 * Migrations whose comments were reworded after they shipped, with the checksums of their earlier
 * texts (prisma/migrations/reworded.json). A database that recorded an earlier checksum is as
 * current as one that recorded the file's: the runner then records the file's. Only comments may
 * change this way; any other edit is still refused, as history must be.
 */
export async function loadRewordings(dir = MIGRATIONS_DIR): Promise<Map<string, string[]>> {
  let text: string;
  try {
    text = await readFile(path.join(dir, "reworded.json"), "utf8");
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return new Map();
    throw error;
  }
  const { migrations } = JSON.parse(text) as { migrations: Record<string, string[]> };
  return new Map(Object.entries(migrations));
}

export interface MigrationResult {
  applied: string[];
  alreadyApplied: number;
}

/** The function files of `dir` (none when it does not exist), by name; `name` is the file's. */
export async function loadFunctions(dir = FUNCTIONS_DIR): Promise<Migration[]> {
  let files: string[];
  try {
    files = (await readdir(dir)).filter((f) => f.endsWith(".sql")).sort();
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return [];
    throw error;
  }
  return Promise.all(
    files.map(async (file) => {
      const sql = await readFile(path.join(dir, file), "utf8");
      return { name: file, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    }),
  );
}

export async function loadMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const folders = entries.filter((e) => e.isDirectory()).map((e) => e.name);
  // A misnamed folder would otherwise be skipped silently and never applied.
  const misnamed = folders.filter((name) => !/^\d{14}_[a-z0-9_]+$/.test(name));
  if (misnamed.length > 0) {
    throw new Error(`migration folders must be named <14 digits>_<lower_snake_name>: ${misnamed.join(", ")}`);
  }
  const names = folders.sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    }),
  );
}

/**
 * Applies pending migrations, each in its own transaction, under an advisory lock so that two
 * processes starting at once cannot both apply one. An applied migration whose file changed
 * afterwards is an error: the database would no longer match the code that describes it. Then
 * the function files of `functionsDir` whose text changed (the real ones with the real
 * migrations; none with another set of migrations unless given).
 */
export async function migrate(
  connectionString: string,
  dir = MIGRATIONS_DIR,
  functionsDir: string | null = dir === MIGRATIONS_DIR ? FUNCTIONS_DIR : null,
): Promise<MigrationResult> {
  const migrations = await loadMigrations(dir);
  const rewordings = await loadRewordings(dir);
  const functions = functionsDir ? await loadFunctions(functionsDir) : [];
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
    const done = await appliedChecksums(client, "_review_console_migrations");
    const known = new Set(migrations.map((m) => m.name));
    const unknown = [...done.keys()].filter((n) => !known.has(n));
    if (unknown.length > 0) {
      throw new Error(`database has migrations this code does not know: ${unknown.join(", ")}`);
    }
    const applied: string[] = [];
    for (const m of migrations) {
      const checksum = done.get(m.name);
      if (checksum !== undefined) {
        if (checksum !== m.checksum && rewordings.get(m.name)?.includes(checksum)) {
          await recordRewording(client, m);
          continue;
        }
        if (checksum !== m.checksum) {
          throw new Error(`migration ${m.name} was changed after it was applied (checksum differs)`);
        }
        continue;
      }
      await client.query("BEGIN");
      try {
        await client.query(m.sql);
        await client.query(`INSERT INTO "_review_console_migrations" (name, checksum) VALUES ($1, $2)`, [
          m.name,
          m.checksum,
        ]);
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK");
        throw new Error(`migration ${m.name} failed: ${(error as Error).message}`, { cause: error });
      }
      applied.push(m.name);
    }
    await applyChangedFunctions(client, functions);
    await ensureLogPartitionsAhead(client);
    return { applied, alreadyApplied: migrations.length - applied.length };
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]).catch(() => {});
    await client.end();
  }
}

/**
 * Records a reworded migration's current checksum. The runtime role may not write the runner's
 * record (docs/threat-model.md); for it the earlier checksum stays, which is just as current.
 */
async function recordRewording(client: pg.Client, m: Migration): Promise<void> {
  try {
    await client.query(`UPDATE "_review_console_migrations" SET checksum = $2 WHERE name = $1`, [m.name, m.checksum]);
  } catch (error) {
    if ((error as { code?: string }).code !== "42501") throw error;
  }
}

/**
 * What the runner has applied, by name, from its bookkeeping `table` (made on first use). Looked
 * up first: CREATE TABLE IF NOT EXISTS needs CREATE on the schema even when the table exists,
 * which the runtime role (docs/threat-model.md) rightly lacks; with nothing pending, a migrate by
 * that role is then a no-op instead of an error.
 */
async function appliedChecksums(
  client: pg.Client,
  table: "_review_console_migrations" | "_review_console_functions",
): Promise<Map<string, string>> {
  const { rows: found } = await client.query<{ t: string | null }>(`SELECT to_regclass('"${table}"')::text AS t`);
  if (!found[0]?.t) {
    await client.query(`CREATE TABLE IF NOT EXISTS "${table}" (
      "name" TEXT PRIMARY KEY,
      "checksum" TEXT NOT NULL,
      "applied_at" TIMESTAMPTZ NOT NULL DEFAULT now()
    )`);
  }
  const { rows } = await client.query<{ name: string; checksum: string }>(`SELECT name, checksum FROM "${table}"`);
  return new Map(rows.map((r) => [r.name, r.checksum]));
}

/**
 * The function files whose text differs from the one last applied (all of them, the first time),
 * each with its record in one transaction; under the migration lock, so two starting consoles do
 * not replace one function at once. A file that fails is named, and nothing of it stays.
 */
async function applyChangedFunctions(client: pg.Client, functions: Migration[]): Promise<void> {
  if (functions.length === 0) return;
  const applied = await appliedChecksums(client, "_review_console_functions");
  for (const f of functions) {
    if (applied.get(f.name) === f.checksum) continue;
    await client.query("BEGIN");
    try {
      await client.query(f.sql);
      await client.query(
        `INSERT INTO "_review_console_functions" (name, checksum) VALUES ($1, $2)
         ON CONFLICT (name) DO UPDATE SET checksum = EXCLUDED.checksum, applied_at = now()`,
        [f.name, f.checksum],
      );
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK");
      throw new Error(`function file ${f.name} failed: ${(error as Error).message}`, { cause: error });
    }
  }
}

/**
 * The decision log's month partitions for this month and the next three (migration
 * 20261201050000_decision_log_partitions; docs/decisions/0023-retention-and-archive.md): made on
 * every start and migrate, so appends find their month's partition. A role that may not create
 * them (the runtime role) skips it; a month without a partition still takes appends, in
 * decision_log_default.
 */
async function ensureLogPartitionsAhead(client: pg.Client): Promise<void> {
  const { rows } = await client.query<{ f: string | null }>(
    `SELECT to_regprocedure('decision_log_ensure_partitions(integer)')::text AS f`,
  );
  if (!rows[0]?.f) return;
  try {
    await client.query("SELECT decision_log_ensure_partitions(3)");
  } catch (error) {
    if ((error as { code?: string }).code !== "42501") throw error;
  }
}
