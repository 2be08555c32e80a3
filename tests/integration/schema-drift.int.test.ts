/**
 * schema.prisma describes the database to the Prisma client; the hand-written SQL migrations
 * build it (Prisma 7's migrate cannot run offline). Nothing else keeps the two in step, so this
 * file compares them: the schema parsed by Prisma's own parser (`@prisma/get-dmmf`, pure wasm)
 * against the catalog of a migrated database, in both directions.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { getDMMF, type GetDMMFError } from "@prisma/get-dmmf";
import { afterEach, describe, expect, it } from "vitest";
import {
  createTestDatabase,
  dropTestDatabase,
  setupTestDatabase,
  withClient,
  type TestDatabase,
} from "../support/database";

const SCHEMA_PATH = path.resolve(import.meta.dirname, "../../prisma/schema.prisma");

/** The runner's own bookkeeping tables (migrations, function files): schema.prisma does not know them. */
const UNMODELLED_TABLES = new Set(["_review_console_migrations", "_review_console_functions"]);

/**
 * Unique indexes Prisma cannot declare (partial ones), each documented in the migration SQL.
 * Adding a name here is a decision: say in the migration why Prisma cannot express it.
 */
const UNDECLARABLE_UNIQUE_INDEXES = new Set(["review_records_active_message_key"]);

type Document = Exclude<ReturnType<typeof getDMMF>, GetDMMFError>;
type Model = Document["datamodel"]["models"][number];
type Field = Model["fields"][number];
type Enum = Document["datamodel"]["enums"][number];

function parseSchema(text: string): Document {
  const result = getDMMF({ datamodel: text });
  if ("error" in result && "reason" in result) {
    throw new Error(`schema.prisma does not parse: ${result.reason}: ${result.error.message}`);
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// Types: both sides are rendered to one string ("timestamp with time zone(3)", "USER-DEFINED
// ReviewStatus"), so a drift message shows both in the same words.

/** Prisma's default column type per scalar type (no @db attribute). */
const SCALAR_TYPES: Record<string, string> = {
  String: "text",
  Int: "integer",
  BigInt: "bigint",
  Boolean: "boolean",
  Float: "double precision",
  Decimal: "numeric(65,30)",
  Bytes: "bytea",
  // Prisma's convention for DateTime without a native type is TIMESTAMP(3).
  DateTime: "timestamp without time zone(3)",
  Json: "jsonb",
};

/** Native types (@db.X(args)) this check understands; the time types default to precision 6. */
const NATIVE_TYPES: Record<string, (args: string[]) => string> = {
  Uuid: () => "uuid",
  Text: () => "text",
  Json: () => "json",
  JsonB: () => "jsonb",
  Integer: () => "integer",
  SmallInt: () => "smallint",
  BigInt: () => "bigint",
  Boolean: () => "boolean",
  DoublePrecision: () => "double precision",
  VarChar: (args) => (args[0] ? `character varying(${args[0]})` : "character varying"),
  Timestamptz: (args) => `timestamp with time zone(${args[0] ?? 6})`,
  Timestamp: (args) => `timestamp without time zone(${args[0] ?? 6})`,
};

/** The column type schema.prisma asks for, or an error when this check cannot tell. */
function expectedType(field: Field, enums: Map<string, Enum>): { type: string } | { unsupported: string } {
  // A String[] is a text[] (bulk_operations.domains); other lists are not used yet.
  if (field.isList) {
    return field.type === "String" && !field.nativeType
      ? { type: "ARRAY _text" }
      : { unsupported: "list fields (Postgres arrays)" };
  }
  if (field.kind === "enum") {
    const e = enums.get(field.type);
    return { type: `USER-DEFINED ${e?.dbName ?? field.type}` };
  }
  if (field.nativeType) {
    const [name, args] = field.nativeType as [string, string[]];
    const render = NATIVE_TYPES[name];
    return render ? { type: render(args) } : { unsupported: `native type @db.${name}` };
  }
  const type = SCALAR_TYPES[field.type];
  return type ? { type } : { unsupported: `scalar type ${field.type}` };
}

interface DbColumn {
  table_name: string;
  column_name: string;
  data_type: string;
  udt_name: string;
  is_nullable: "YES" | "NO";
  character_maximum_length: number | null;
  numeric_precision: number | null;
  numeric_scale: number | null;
  datetime_precision: number | null;
}

function describeDbType(c: DbColumn): string {
  if (c.data_type === "USER-DEFINED" || c.data_type === "ARRAY") return `${c.data_type} ${c.udt_name}`;
  if (c.data_type.startsWith("timestamp")) return `${c.data_type}(${c.datetime_precision})`;
  if (c.data_type === "character varying" && c.character_maximum_length !== null) {
    return `character varying(${c.character_maximum_length})`;
  }
  if (c.data_type === "numeric" && c.numeric_precision !== null)
    return `numeric(${c.numeric_precision},${c.numeric_scale})`;
  return c.data_type;
}

// ---------------------------------------------------------------------------------------------
// The database side: one read of the catalog.

interface DbUniqueIndex {
  table: string;
  name: string;
  primary: boolean;
  partial: boolean;
  expression: boolean;
  columns: string[];
}

interface Catalog {
  tables: Map<string, string>; // name -> table_type
  columns: DbColumn[];
  enums: Map<string, string[]>; // type name -> labels in sort order
  uniqueIndexes: DbUniqueIndex[];
}

async function readCatalog(url: string): Promise<Catalog> {
  return withClient(url, async (c) => {
    const tables = await c.query<{ table_name: string; table_type: string }>(
      // Partitions (the decision log's months) are the parent's storage, not tables of their own.
      `SELECT table_name, table_type FROM information_schema.tables
        WHERE table_schema = 'public' AND table_name NOT IN (SELECT c.relname FROM pg_class c JOIN pg_namespace cn ON cn.oid = c.relnamespace WHERE cn.nspname = 'public' AND c.relispartition) ORDER BY table_name`,
    );
    const columns = await c.query<DbColumn>(
      `SELECT table_name, column_name, data_type, udt_name, is_nullable, character_maximum_length,
              numeric_precision, numeric_scale, datetime_precision
         FROM information_schema.columns
        WHERE table_schema = 'public' AND table_name NOT IN (SELECT c.relname FROM pg_class c JOIN pg_namespace cn ON cn.oid = c.relnamespace WHERE cn.nspname = 'public' AND c.relispartition) ORDER BY table_name, ordinal_position`,
    );
    const enums = await c.query<{ name: string; labels: string[] }>(
      `SELECT t.typname::text AS name, array_agg(e.enumlabel::text ORDER BY e.enumsortorder) AS labels
         FROM pg_type t
         JOIN pg_namespace n ON n.oid = t.typnamespace
         JOIN pg_enum e ON e.enumtypid = t.oid
        WHERE n.nspname = 'public'
        GROUP BY t.typname ORDER BY t.typname`,
    );
    // Key columns only (an INCLUDE column does not take part in uniqueness); an expression
    // key has attnum 0 and no attribute, hence the separate flag.
    const uniques = await c.query<DbUniqueIndex>(
      `SELECT t.relname::text AS table, i.relname::text AS name, ix.indisprimary AS primary,
              ix.indpred IS NOT NULL AS partial, ix.indexprs IS NOT NULL AS expression,
              array(SELECT a.attname::text
                      FROM unnest(ix.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
                      JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
                     WHERE k.ord <= ix.indnkeyatts
                     ORDER BY k.ord) AS columns
         FROM pg_index ix
         JOIN pg_class i ON i.oid = ix.indexrelid
         JOIN pg_class t ON t.oid = ix.indrelid
         JOIN pg_namespace n ON n.oid = t.relnamespace
        WHERE n.nspname = 'public' AND ix.indisunique AND NOT t.relispartition
        ORDER BY t.relname, i.relname`,
    );
    return {
      tables: new Map(tables.rows.map((r) => [r.table_name, r.table_type])),
      columns: columns.rows,
      enums: new Map(enums.rows.map((r) => [r.name, r.labels])),
      uniqueIndexes: uniques.rows,
    };
  });
}

// ---------------------------------------------------------------------------------------------
// The comparison. Each difference is one sentence naming the table/column/type and both sides.

const list = (names: string[]) => `(${names.join(", ")})`;

type Datamodel = Document["datamodel"];

/** Everything in which the database at `url` differs from `schemaText`; empty when they agree. */
async function schemaDrift(url: string, schemaText: string): Promise<string[]> {
  const { datamodel } = parseSchema(schemaText);
  const catalog = await readCatalog(url);
  return [...tableDrift(datamodel, catalog), ...enumDrift(datamodel, catalog), ...uniqueIndexDrift(datamodel, catalog)];
}

const tableOf = (model: Model) => model.dbName ?? model.name;
const columnOf = (field: Field) => field.dbName ?? field.name;
const columnFields = (model: Model) => model.fields.filter((f) => f.kind === "scalar" || f.kind === "enum");

/** Tables and their columns (type, nullability), in both directions. */
function tableDrift(datamodel: Datamodel, db: Catalog): string[] {
  const differences: string[] = [];
  const enums = new Map(datamodel.enums.map((e) => [e.name, e]));
  const columnsByTable = new Map<string, Map<string, DbColumn>>();
  for (const c of db.columns) {
    if (!columnsByTable.has(c.table_name)) columnsByTable.set(c.table_name, new Map());
    columnsByTable.get(c.table_name)!.set(c.column_name, c);
  }

  for (const model of datamodel.models) {
    const table = tableOf(model);
    const actual = columnsByTable.get(table);
    if (!db.tables.has(table) || !actual) {
      differences.push(`table ${table} (model ${model.name}) is missing from the database`);
      continue;
    }
    for (const field of columnFields(model)) {
      const where = `${table}.${columnOf(field)} (${model.name}.${field.name})`;
      const c = actual.get(columnOf(field));
      if (!c) {
        differences.push(`column ${where} is missing from the database`);
        continue;
      }
      const expected = expectedType(field, enums);
      if ("unsupported" in expected) {
        differences.push(
          `${where}: this drift test cannot check ${expected.unsupported}; teach expectedType() about it`,
        );
      } else if (describeDbType(c) !== expected.type) {
        differences.push(`${where}: type is ${describeDbType(c)} in the database, ${expected.type} in schema.prisma`);
      }
      const nullable = c.is_nullable === "YES";
      if (nullable === field.isRequired) {
        differences.push(
          `${where}: ${nullable ? "nullable" : "NOT NULL"} in the database, ` +
            `${field.isRequired ? "required" : "optional"} in schema.prisma`,
        );
      }
    }
  }

  const declared = new Map(datamodel.models.map((m) => [tableOf(m), new Set(columnFields(m).map(columnOf))]));
  for (const [table, type] of db.tables) {
    if (UNMODELLED_TABLES.has(table)) continue;
    const columns = declared.get(table);
    if (!columns) {
      differences.push(
        `${type === "BASE TABLE" ? "table" : type.toLowerCase()} ${table} is not declared in schema.prisma`,
      );
      continue;
    }
    for (const column of columnsByTable.get(table)?.keys() ?? []) {
      if (!columns.has(column)) differences.push(`column ${table}.${column} is not declared in schema.prisma`);
    }
  }
  return differences;
}

/** Enum types and their values; the database holds the @map'ed value (dbName), not the Prisma name. */
function enumDrift(datamodel: Datamodel, db: Catalog): string[] {
  const differences: string[] = [];
  for (const e of datamodel.enums) {
    const type = e.dbName ?? e.name;
    const labels = db.enums.get(type);
    if (!labels) {
      differences.push(`enum type ${type} (enum ${e.name}) is missing from the database`);
      continue;
    }
    const declared = e.values.map((v) => v.dbName ?? v.name);
    const missing = declared.filter((v) => !labels.includes(v));
    const extra = labels.filter((v) => !declared.includes(v));
    if (missing.length > 0) differences.push(`enum ${type}: values ${list(missing)} are missing from the database`);
    if (extra.length > 0) differences.push(`enum ${type}: values ${list(extra)} are not declared in schema.prisma`);
  }
  const declaredTypes = new Set(datamodel.enums.map((e) => e.dbName ?? e.name));
  for (const type of db.enums.keys()) {
    if (!declaredTypes.has(type)) differences.push(`enum type ${type} is not declared in schema.prisma`);
  }
  return differences;
}

/**
 * Every @id / @unique / @@unique is a full (non-partial) unique index on exactly its columns, in
 * order, and @id is the primary key. Any other unique index is drift unless allow-listed.
 */
function uniqueIndexDrift(datamodel: Datamodel, db: Catalog): string[] {
  const differences: string[] = [];
  const matched = new Set<DbUniqueIndex>();
  for (const index of datamodel.indexes.filter((i) => i.type === "id" || i.type === "unique")) {
    const model = datamodel.models.find((m) => m.name === index.model)!;
    const table = tableOf(model);
    if (!db.tables.has(table)) continue; // reported by tableDrift
    const columns = index.fields.map((f) => {
      const field = model.fields.find((mf) => mf.name === f.name);
      return field ? columnOf(field) : f.name;
    });
    const attribute = index.type === "id" ? "@id" : "@unique";
    const candidates = db.uniqueIndexes.filter(
      (u) => u.table === table && !u.partial && !u.expression && u.columns.join(",") === columns.join(","),
    );
    const found = candidates.find((u) => index.type !== "id" || u.primary);
    if (found) {
      matched.add(found);
    } else if (candidates.length > 0) {
      differences.push(
        `${table} ${list(columns)}: ${attribute} in schema.prisma, but unique (not the primary key) in the database`,
      );
    } else {
      differences.push(
        `${table} ${list(columns)}: ${attribute} in schema.prisma has no unique index on exactly these columns`,
      );
    }
  }
  for (const u of db.uniqueIndexes) {
    if (matched.has(u) || UNMODELLED_TABLES.has(u.table)) continue;
    if (UNDECLARABLE_UNIQUE_INDEXES.has(u.name)) {
      if (!u.partial) differences.push(`unique index ${u.name} is allow-listed as partial but is not partial`);
      continue;
    }
    differences.push(
      `unique index ${u.name} on ${u.table} ${u.expression ? "(expression)" : list(u.columns)}` +
        `${u.partial ? " (partial)" : ""} is not declared in schema.prisma`,
    );
  }
  const existing = new Set(db.uniqueIndexes.map((u) => u.name));
  for (const name of UNDECLARABLE_UNIQUE_INDEXES) {
    if (!existing.has(name))
      differences.push(`allow-listed unique index ${name} does not exist: remove it from the list`);
  }
  return differences;
}

// ---------------------------------------------------------------------------------------------

const schemaText = readFileSync(SCHEMA_PATH, "utf8");
const database = setupTestDatabase();

describe("schema.prisma and the migrated database", () => {
  it("agree: tables, columns, types, nullability, enum values and unique indexes, both ways", async () => {
    // On failure the diff lists each difference as one sentence.
    expect(await schemaDrift(database.current.url, schemaText)).toEqual([]);
  });
});

describe("the drift check itself", () => {
  // Each case alters its own copy of the migrated database, so no case sees another's damage.
  const extra: TestDatabase[] = [];
  afterEach(async () => {
    await Promise.all(extra.splice(0).map((d) => dropTestDatabase(d)));
  });
  async function alteredDatabase(sql: string[]): Promise<string> {
    const d = await createTestDatabase();
    extra.push(d);
    // One statement per query: ALTER TYPE .. ADD VALUE is not allowed together with other statements.
    await withClient(d.url, async (c) => {
      for (const statement of sql) await c.query(statement);
    });
    return d.url;
  }

  it("reports a column that lost its NOT NULL", async () => {
    const url = await alteredDatabase([`ALTER TABLE review_records ALTER COLUMN reason DROP NOT NULL`]);
    expect(await schemaDrift(url, schemaText)).toEqual([
      "review_records.reason (ReviewRecord.reason): nullable in the database, required in schema.prisma",
    ]);
  });

  it("reports each kind of drift in the database, naming what drifted", async () => {
    const url = await alteredDatabase([
      `ALTER TABLE users ALTER COLUMN email TYPE varchar(320)`,
      `ALTER TABLE decision_log_checkpoints ALTER COLUMN at TYPE timestamptz(3)`,
      `ALTER TABLE review_revisions ALTER COLUMN envelope TYPE json`,
      `ALTER TABLE review_history ALTER COLUMN reason SET NOT NULL`,
      `ALTER TABLE sequence_state DROP COLUMN updated_at`,
      `ALTER TABLE api_tokens ADD COLUMN scratch text`,
      `CREATE TABLE leftovers (id integer)`,
      `CREATE VIEW open_records AS SELECT id FROM review_records`,
      `ALTER TYPE "Role" ADD VALUE 'intruder'`,
      // An un-@map'ed label: what a migration that forgot @map("duplicate-suppressed") would write.
      `ALTER TYPE "ReplayState" RENAME VALUE 'duplicate-suppressed' TO 'duplicate_suppressed'`,
      `CREATE TYPE "Mood" AS ENUM ('calm')`,
      `DROP INDEX review_revisions_review_id_number_key`,
      `CREATE UNIQUE INDEX users_role_key ON users (role)`,
      // The primary key replaced by a plain unique index on the same column.
      `ALTER TABLE sequence_state DROP CONSTRAINT sequence_state_pkey`,
      `CREATE UNIQUE INDEX sequence_state_sequence_key_key ON sequence_state (sequence_key)`,
      // Made non-partial: it would then allow only one record per message, ever.
      `DROP INDEX review_records_active_message_key`,
      `CREATE UNIQUE INDEX review_records_active_message_key ON review_records (message_key)`,
    ]);
    const differences = await schemaDrift(url, schemaText);
    expect([...differences].sort()).toEqual(
      [
        "users.email (User.email): type is character varying(320) in the database, text in schema.prisma",
        "decision_log_checkpoints.at (DecisionLogCheckpoint.at): type is timestamp with time zone(3) in the database, timestamp with time zone(6) in schema.prisma",
        "review_revisions.envelope (ReviewRevision.envelope): type is json in the database, jsonb in schema.prisma",
        "review_history.reason (ReviewHistory.reason): NOT NULL in the database, optional in schema.prisma",
        "column sequence_state.updated_at (SequenceState.updatedAt) is missing from the database",
        "column api_tokens.scratch is not declared in schema.prisma",
        "table leftovers is not declared in schema.prisma",
        "view open_records is not declared in schema.prisma",
        "enum Role: values (intruder) are not declared in schema.prisma",
        "enum ReplayState: values (duplicate-suppressed) are missing from the database",
        "enum ReplayState: values (duplicate_suppressed) are not declared in schema.prisma",
        "enum type Mood is not declared in schema.prisma",
        "review_revisions (review_id, number): @unique in schema.prisma has no unique index on exactly these columns",
        "unique index users_role_key on users (role) is not declared in schema.prisma",
        "sequence_state (sequence_key): @id in schema.prisma, but unique (not the primary key) in the database",
        "unique index sequence_state_sequence_key_key on sequence_state (sequence_key) is not declared in schema.prisma",
        "unique index review_records_active_message_key is allow-listed as partial but is not partial",
      ].sort(),
    );
  });

  it("reports what schema.prisma declares and the database lacks", async () => {
    // The untouched database against a schema that grew: proves the schema side is really read.
    const grown = schemaText
      .replace("model User {", "model User {\n  nickname String?")
      .replace(`@@map("users")`, `@@unique([role, createdAt])\n  @@map("users")`)
      .replace("enum Role {", 'enum Role {\n  robot @map("ro-bot")')
      .concat(`\nmodel Widget {\n  id Int @id\n  @@map("widgets")\n}\n`)
      .concat(`\nenum Colour {\n  red\n}\n`);
    expect(grown).not.toBe(schemaText);
    const differences = await schemaDrift(database.current.url, grown);
    expect([...differences].sort()).toEqual(
      [
        "column users.nickname (User.nickname) is missing from the database",
        "users (role, created_at): @unique in schema.prisma has no unique index on exactly these columns",
        "enum Role: values (ro-bot) are missing from the database",
        "table widgets (model Widget) is missing from the database",
        // Colour is not used by any field, yet Prisma's client would still expect the type.
        "enum type Colour (enum Colour) is missing from the database",
      ].sort(),
    );
  });
});
