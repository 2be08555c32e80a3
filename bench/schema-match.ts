import { randomBytes } from "node:crypto";
import { withConnection } from "@/lib/db/connection";
import { migrate } from "@/lib/db/migrate";

/*
 * A seed must leave the database production has: the seeds drop indexes and switch triggers off
 * for speed (testing/seed/synthetic.ts, synthetic-log.ts), and a bench that measured what they left
 * behind once measured a database no migration makes. This compares the seeded database's
 * catalog with that of a freshly migrated, empty one on the same server, in both directions:
 *
 *   - every ordinary table and partitioned parent in `public` (partitions are their parent's
 *     storage): its kind and persistence (an UNLOGGED table is drift), its columns (name, type,
 *     NOT NULL, default, identity/generated), its constraints (pg_get_constraintdef), its indexes
 *     (pg_get_indexdef, and that each is valid and ready), its triggers (pg_get_triggerdef and
 *     whether each is enabled; the foreign keys' internal triggers by function and state);
 *   - every partition of a partitioned table: each of the parent's indexes has a valid attached
 *     partition index on it, and each of the parent's triggers a clone in the parent's state.
 *     The partitions themselves may differ in number (a seed adds the months it fills).
 *
 * Answers the differences, one sentence each, naming the table and the object; none when equal.
 */

interface Catalog {
  /** table -> its attributes, columns, constraints, indexes and triggers, each rendered to text. */
  tables: Map<string, Map<string, string>>;
  /** Problems found on partitions (no comparison needed: a migrated database has none). */
  partitions: string[];
}

async function readCatalog(url: string): Promise<Catalog> {
  return withConnection(url, async (c) => {
    const tables = new Map<string, Map<string, string>>();
    const add = (table: string, key: string, value: string) => {
      if (!tables.has(table)) tables.set(table, new Map());
      const entries = tables.get(table)!;
      // Internal triggers are named by oid; several may share a key, so they are counted.
      const previous = entries.get(key);
      entries.set(key, previous === undefined ? value : `${previous}; ${value}`);
    };
    const TOP = `c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition`;

    const relations = await c.query<{ table: string; kind: string; persistence: string; rls: boolean }>(
      `SELECT c.relname::text AS table, c.relkind::text AS kind, c.relpersistence::text AS persistence,
              c.relrowsecurity AS rls
         FROM pg_class c WHERE ${TOP}`,
    );
    for (const r of relations.rows) {
      add(r.table, "table", `kind ${r.kind}, persistence ${r.persistence}, row security ${r.rls ? "on" : "off"}`);
    }

    const columns = await c.query<{ table: string; column: string; position: number; definition: string }>(
      `SELECT c.relname::text AS table, a.attname::text AS column,
              row_number() OVER (PARTITION BY c.oid ORDER BY a.attnum)::int AS position,
              format_type(a.atttypid, a.atttypmod)
                || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END
                || coalesce(' DEFAULT ' || pg_get_expr(d.adbin, d.adrelid), '')
                || CASE WHEN a.attidentity <> ''::"char" THEN ' IDENTITY ' || a.attidentity::text ELSE '' END
                || CASE WHEN a.attgenerated <> ''::"char" THEN ' GENERATED ' || a.attgenerated::text ELSE '' END
                || coalesce(' COLLATE ' || NULLIF(co.collname, 'default'), '') AS definition
         FROM pg_class c
         JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
         LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
         LEFT JOIN pg_collation co ON co.oid = a.attcollation AND a.attcollation <> 0
        WHERE ${TOP}`,
    );
    for (const r of columns.rows) add(r.table, `column ${r.column}`, `#${r.position} ${r.definition}`);

    const constraints = await c.query<{ table: string; name: string; definition: string }>(
      `SELECT c.relname::text AS table, k.conname::text AS name,
              pg_get_constraintdef(k.oid) || CASE WHEN k.convalidated THEN '' ELSE ' (not validated)' END AS definition
         FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid WHERE ${TOP}`,
    );
    for (const r of constraints.rows) add(r.table, `constraint ${r.name}`, r.definition);

    const indexes = await c.query<{ table: string; name: string; definition: string }>(
      `SELECT c.relname::text AS table, i.relname::text AS name,
              pg_get_indexdef(x.indexrelid)
                || CASE WHEN x.indisvalid THEN '' ELSE ' (INVALID)' END
                || CASE WHEN x.indisready THEN '' ELSE ' (not ready)' END AS definition
         FROM pg_index x JOIN pg_class c ON c.oid = x.indrelid JOIN pg_class i ON i.oid = x.indexrelid
        WHERE ${TOP}`,
    );
    for (const r of indexes.rows) add(r.table, `index ${r.name}`, r.definition);

    // tgenabled: O enabled, D disabled, R replica only, A always.
    const triggers = await c.query<{ table: string; name: string; internal: boolean; definition: string }>(
      `SELECT c.relname::text AS table, t.tgname::text AS name, t.tgisinternal AS internal,
              CASE WHEN t.tgisinternal THEN p.proname::text ELSE pg_get_triggerdef(t.oid) END
                || ' [enabled ' || t.tgenabled::text || ']' AS definition
         FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_proc p ON p.oid = t.tgfoid
        WHERE ${TOP}
        ORDER BY 1, 4`,
    );
    for (const r of triggers.rows) {
      add(r.table, r.internal ? `internal triggers ${r.definition.split(" ")[0]}` : `trigger ${r.name}`, r.definition);
    }

    const partitions: string[] = [];
    const missingIndexes = await c.query<{ partition: string; index: string }>(
      `SELECT p.inhrelid::regclass::text AS partition, pi.indexrelid::regclass::text AS index
         FROM pg_class parent
         JOIN pg_inherits p ON p.inhparent = parent.oid
         JOIN pg_index pi ON pi.indrelid = parent.oid
        WHERE parent.relnamespace = 'public'::regnamespace AND parent.relkind = 'p'
          AND NOT EXISTS (
            SELECT 1 FROM pg_inherits ci JOIN pg_index x ON x.indexrelid = ci.inhrelid
             WHERE ci.inhparent = pi.indexrelid AND x.indrelid = p.inhrelid AND x.indisvalid AND x.indisready)
        ORDER BY 1, 2`,
    );
    for (const r of missingIndexes.rows) {
      partitions.push(`partition ${r.partition} has no valid attached partition index of ${r.index}`);
    }
    const triggerStates = await c.query<{ partition: string; trigger: string; problem: string }>(
      `SELECT p.inhrelid::regclass::text AS partition, t.tgname::text AS trigger,
              CASE WHEN ct.oid IS NULL THEN 'has no clone of the parent''s trigger'
                   ELSE 'has the parent''s trigger ' || ct.tgenabled::text || ', the parent ' || t.tgenabled::text
              END AS problem
         FROM pg_class parent
         JOIN pg_inherits p ON p.inhparent = parent.oid
         JOIN pg_trigger t ON t.tgrelid = parent.oid AND NOT t.tgisinternal AND (t.tgtype & 1) = 1
         LEFT JOIN pg_trigger ct ON ct.tgrelid = p.inhrelid AND ct.tgparentid = t.oid
        WHERE parent.relnamespace = 'public'::regnamespace AND parent.relkind = 'p'
          AND (ct.oid IS NULL OR ct.tgenabled <> t.tgenabled)
        ORDER BY 1, 2`,
    );
    for (const r of triggerStates.rows) partitions.push(`partition ${r.partition} ${r.problem} (${r.trigger})`);
    return { tables, partitions };
  });
}

/** The differences between the database at `url` and a migrated one: one sentence each, none when equal. */
export async function schemaDifferences(url: string): Promise<string[]> {
  const serverUrl = new URL(url);
  serverUrl.pathname = "/postgres";
  const name = `rc_schema_ref_${randomBytes(4).toString("hex")}`;
  const referenceUrl = new URL(url);
  referenceUrl.pathname = `/${name}`;
  await withConnection(serverUrl.toString(), (c) => c.query(`CREATE DATABASE ${name}`));
  try {
    await migrate(referenceUrl.toString());
    const [seeded, migrated] = await Promise.all([readCatalog(url), readCatalog(referenceUrl.toString())]);
    const differences: string[] = [];
    for (const [table, expected] of migrated.tables) {
      const actual = seeded.tables.get(table);
      if (!actual) {
        differences.push(`table ${table} is missing`);
        continue;
      }
      for (const [key, value] of expected) {
        const found = actual.get(key);
        if (found === undefined) differences.push(`${table}: ${key} is missing (migrated: ${value})`);
        else if (found !== value) differences.push(`${table}: ${key} is "${found}", migrated "${value}"`);
      }
      for (const [key, value] of actual) {
        if (!expected.has(key)) differences.push(`${table}: ${key} is not in a migrated database (${value})`);
      }
    }
    for (const table of seeded.tables.keys()) {
      if (!migrated.tables.has(table)) differences.push(`table ${table} is not in a migrated database`);
    }
    differences.push(...seeded.partitions);
    // A migrated database's own partitions must pass too, or the check itself is wrong.
    differences.push(...migrated.partitions.map((p) => `in the migrated database itself: ${p}`));
    return differences;
  } finally {
    await withConnection(serverUrl.toString(), (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  }
}

/** Throws, naming every difference, unless the database at `url` has a migrated database's schema. */
export async function assertSchemaMatchesMigrated(url: string): Promise<void> {
  const started = performance.now();
  const differences = await schemaDifferences(url);
  if (differences.length > 0) {
    throw new Error(
      `the seeded database's schema differs from a migrated one (${differences.length}):\n` +
        differences.map((d) => `  - ${d}`).join("\n"),
    );
  }
  const { rows } = await withConnection(url, (c) =>
    c.query<{ tables: number; indexes: number; triggers: number; partitions: number }>(
      `SELECT (SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'p') AND NOT relispartition)::int AS tables,
              (SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind IN ('i', 'I'))::int AS indexes,
              (SELECT count(*) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE c.relnamespace = 'public'::regnamespace AND NOT t.tgisinternal)::int AS triggers,
              (SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relispartition AND relkind = 'r')::int AS partitions`,
    ),
  );
  const n = rows[0]!;
  console.log(
    `schema: equal to a freshly migrated database (${n.tables} tables; ${n.indexes} indexes and ${n.triggers} triggers, ` +
      `the ${n.partitions} partitions' included; ${((performance.now() - started) / 1000).toFixed(1)} s)`,
  );
}
