import { createHash, createHmac, pbkdf2Sync, randomBytes } from "node:crypto";
import pg from "pg";

/*
 * Least privilege for the processes that serve and consume (docs/threat-model.md): they connect
 * as a runtime role that may read and write the domain tables but may only append to the
 * decision log, never change or empty it, never alter a table or its triggers, and never create
 * anything in the schema. Migrations run as the owner of the tables (MIGRATION_DATABASE_URL).
 * Nothing here uses ALTER DEFAULT PRIVILEGES: a new table gets no grant until this runs again,
 * so a new log table can never start out writable by accident.
 */

/** Tables the runtime role may only append to, or only read. Everything else: read and write. */
const TABLE_PRIVILEGES: Record<string, string[]> = {
  decision_log: ["SELECT", "INSERT"],
  decision_log_head: ["SELECT"],
  decision_log_checkpoints: ["SELECT", "INSERT"],
  _review_console_migrations: ["SELECT"],
  // ADR 0044: which function files the runner applied; written only by it, as the owner.
  _review_console_functions: ["SELECT"],
  // The metrics' counts: written only by their triggers (SECURITY DEFINER, migration
  // 20261201030000_metric_counts), so intake and actions need no grant on them; the scrape reads.
  review_record_counts: ["SELECT"],
  replay_counts: ["SELECT"],
  operation_pending_counts: ["SELECT"],
  // 20261201040000: the grouped view's counts (kept like the others) and the log's time order
  // (written only by that migration).
  review_group_counts: ["SELECT"],
  decision_log_time_order: ["SELECT"],
  // 20261201080000: the overview's arrivals, kept by their triggers like the counts above.
  review_arrival_counts: ["SELECT"],
  // 20261202070000: the same by day, written only by the arrivals' compaction.
  review_arrival_day_counts: ["SELECT"],
  // 20261201050000: what `review-console archive` removed (written only by it, as the owner).
  decision_log_archives: ["SELECT"],
};
const DEFAULT_TABLE_PRIVILEGES = ["SELECT", "INSERT", "UPDATE", "DELETE"];
/**
 * Functions PUBLIC may not execute (migration 20261202050000) that the runtime role needs:
 * decision_log_next_at() is the default of decision_log.at, evaluated as the inserting role on
 * every append. SECURITY DEFINER: it takes the head lock with the owner's rights.
 */
const RUNTIME_FUNCTIONS = ["decision_log_next_at()"];
/** What the append-only tables must not allow, whatever PUBLIC or anyone else granted. */
const FORBIDDEN_ON_LOG = ["UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER"];

// Any constant: it only serialises two runs against one database (concurrent GRANTs on one table
// fail with "tuple concurrently updated").
const ROLES_LOCK_KEY = 727_002;

export interface RuntimeRoleOptions {
  name: string;
  /** Set (or reset) the role's password. Without it, an existing password stays as it is. */
  password?: string;
  /** False: only refresh the grants of an existing role; a missing one is an error. */
  create?: boolean;
}

export interface RuntimeRoleResult {
  role: string;
  created: boolean;
  passwordSet: boolean;
  /** Attributes changed on an existing role to make it a runtime role (e.g. `NOCREATEDB`). */
  attributesChanged: string[];
  /** Each table of schema public with what the role may now do on it. */
  tables: { name: string; privileges: string[] }[];
  sequences: number;
  /** Things this function cannot fix without touching other roles, e.g. CREATE granted to PUBLIC. */
  warnings: string[];
}

/** Refused input or a role that cannot be made a runtime role; the message says why. */
export class RuntimeRoleError extends Error {}

/** Role names we accept: plain enough to put in a connection URL and a shell unquoted. */
export function checkRoleName(name: string): string | null {
  if (!/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(name)) {
    return "must start with a letter or _ and contain only letters, digits, _, . and -";
  }
  if (Buffer.byteLength(name) > 63) return "must be at most 63 bytes (PostgreSQL's limit)";
  // PostgreSQL reserves these; CREATE ROLE would refuse them with a less helpful message.
  if (/^pg_/i.test(name)) return "must not start with pg_ (reserved by PostgreSQL)";
  if (["public", "none", "current_user", "session_user", "current_role"].includes(name.toLowerCase())) {
    return `${name} is reserved by PostgreSQL`;
  }
  return null;
}

/**
 * A SCRAM-SHA-256 verifier of `password`, the way psql's \password sends it: the server stores it
 * as given, so the password itself never reaches the server's statement log or
 * pg_stat_statements. Only for printable ASCII, which SASLprep leaves unchanged; other passwords
 * go as they are and the server hashes them (see rolePasswordLiteral).
 */
function scramVerifier(password: string): string {
  const iterations = 4096;
  const salt = randomBytes(16);
  const salted = pbkdf2Sync(password, salt, iterations, 32, "sha256");
  const clientKey = createHmac("sha256", salted).update("Client Key").digest();
  const storedKey = createHash("sha256").update(clientKey).digest();
  const serverKey = createHmac("sha256", salted).update("Server Key").digest();
  return `SCRAM-SHA-256$${iterations}:${salt.toString("base64")}$${storedKey.toString("base64")}:${serverKey.toString("base64")}`;
}

function rolePasswordLiteral(password: string): string {
  return pg.escapeLiteral(/^[\x20-\x7e]+$/.test(password) ? scramVerifier(password) : password);
}

/**
 * Creates the runtime role `name` if it is missing (LOGIN, no superuser, no CREATEDB, no
 * CREATEROLE, NOINHERIT, no BYPASSRLS, no replication), sets its password when one is given, and
 * (re)applies its grants in the database of `ownerConnectionString`: USAGE on schema public but
 * not CREATE; SELECT, INSERT, UPDATE, DELETE on every table except the log tables (see
 * TABLE_PRIVILEGES); USAGE, SELECT on every sequence; EXECUTE on RUNTIME_FUNCTIONS (the other
 * functions stay as PUBLIC has them). Each table's privileges are revoked and granted afresh, so the result is the same whatever
 * the role had before, and running it again after a migration grants the new tables. All in one
 * transaction. Refuses the connecting user, a superuser, and a role that owns or can become an
 * owner of the tables (SET ROLE would hand it everything the grants withhold).
 */
export async function ensureRuntimeRole(
  ownerConnectionString: string,
  options: RuntimeRoleOptions,
): Promise<RuntimeRoleResult> {
  const { name, password } = options;
  const nameProblem = checkRoleName(name);
  if (nameProblem) throw new RuntimeRoleError(`runtime user: ${nameProblem}`);
  if (password !== undefined && (password.length === 0 || password.includes("\u0000"))) {
    throw new RuntimeRoleError("password: must be non-empty and contain no NUL character");
  }
  const role = pg.escapeIdentifier(name);
  const client = new pg.Client({ connectionString: ownerConnectionString });
  await client.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock($1)", [ROLES_LOCK_KEY]);
    const result = await applyRole(client, name, role, options.create ?? true, password);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    await client.end();
  }
}

async function applyRole(
  client: pg.Client,
  name: string,
  role: string,
  create: boolean,
  password: string | undefined,
): Promise<RuntimeRoleResult> {
  const q = async <T extends pg.QueryResultRow>(text: string, params: unknown[] = []) =>
    (await client.query<T>(text, params)).rows;

  const [who] = await q<{ current_user: string; session_user: string; database: string }>(
    "SELECT current_user, session_user, current_database() AS database",
  );
  if (name === who!.current_user || name === who!.session_user) {
    throw new RuntimeRoleError(
      `runtime user: ${name} is the user this command connects as (the owner); name another role`,
    );
  }
  const [existing] = await q<{
    rolsuper: boolean;
    rolcreatedb: boolean;
    rolcreaterole: boolean;
    rolinherit: boolean;
    rolbypassrls: boolean;
    rolreplication: boolean;
    rolcanlogin: boolean;
  }>(
    `SELECT rolsuper, rolcreatedb, rolcreaterole, rolinherit, rolbypassrls, rolreplication, rolcanlogin
       FROM pg_roles WHERE rolname = $1`,
    [name],
  );

  let created = false;
  const attributesChanged: string[] = [];
  if (!existing) {
    if (!create) throw new RuntimeRoleError(`runtime user: role ${name} does not exist`);
    await client.query(
      `CREATE ROLE ${role} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT NOBYPASSRLS NOREPLICATION`,
    );
    created = true;
  } else {
    if (existing.rolsuper) {
      throw new RuntimeRoleError(`runtime user: ${name} is a superuser; a runtime role must not be one`);
    }
    await refuseOwnerLike(q, name);
    // Only the attributes that differ: naming one (even to its current value) can need
    // superuser rights the owner does not have (BYPASSRLS, REPLICATION).
    if (!existing.rolcanlogin) attributesChanged.push("LOGIN");
    if (existing.rolcreatedb) attributesChanged.push("NOCREATEDB");
    if (existing.rolcreaterole) attributesChanged.push("NOCREATEROLE");
    if (existing.rolinherit) attributesChanged.push("NOINHERIT");
    if (existing.rolbypassrls) attributesChanged.push("NOBYPASSRLS");
    if (existing.rolreplication) attributesChanged.push("NOREPLICATION");
    if (attributesChanged.length > 0) await client.query(`ALTER ROLE ${role} ${attributesChanged.join(" ")}`);
  }
  if (password !== undefined) await client.query(`ALTER ROLE ${role} PASSWORD ${rolePasswordLiteral(password)}`);

  // CONNECT: PUBLIC has it by default, but a hardened server may have revoked it.
  await client.query(`GRANT CONNECT ON DATABASE ${pg.escapeIdentifier(who!.database)} TO ${role}`);
  await client.query(`GRANT USAGE ON SCHEMA public TO ${role}`);
  await client.query(`REVOKE CREATE ON SCHEMA public FROM ${role}`);

  const relations = await q<{ relname: string; relkind: string }>(
    `SELECT c.relname, c.relkind::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S') AND NOT c.relispartition
      ORDER BY c.relname`,
  );
  // Partitions (the decision log's months, 20261201050000) are reached through their parent,
  // whose grants decide; naming one directly gets nothing.
  const partitions = await q<{ relname: string }>(
    `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relispartition AND c.relkind IN ('r', 'p') ORDER BY c.relname`,
  );
  for (const { relname } of partitions) {
    await client.query(`REVOKE ALL ON TABLE public.${pg.escapeIdentifier(relname)} FROM ${role}`);
  }
  const tables: RuntimeRoleResult["tables"] = [];
  let sequences = 0;
  for (const { relname, relkind } of relations) {
    const target = `public.${pg.escapeIdentifier(relname)}`;
    if (relkind === "S") {
      // USAGE is what nextval needs; without UPDATE, setval is refused.
      await client.query(`REVOKE ALL ON SEQUENCE ${target} FROM ${role}`);
      await client.query(`GRANT USAGE, SELECT ON SEQUENCE ${target} TO ${role}`);
      sequences++;
      continue;
    }
    // REVOKE ALL first (it covers UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER and MAINTAIN, and
    // the column privileges), then the grant: the outcome does not depend on earlier grants.
    const privileges = TABLE_PRIVILEGES[relname] ?? DEFAULT_TABLE_PRIVILEGES;
    await client.query(`REVOKE ALL ON TABLE ${target} FROM ${role}`);
    await client.query(`GRANT ${privileges.join(", ")} ON TABLE ${target} TO ${role}`);
    tables.push({ name: relname, privileges });
  }

  for (const fn of RUNTIME_FUNCTIONS) {
    // Before its migration PUBLIC executes it anyway: only a function that exists is granted.
    const [exists] = await q<{ oid: string | null }>(`SELECT to_regprocedure($1)::oid AS oid`, [`public.${fn}`]);
    if (exists?.oid) await client.query(`GRANT EXECUTE ON FUNCTION public.${fn} TO ${role}`);
  }

  await verifyGrants(q, name, relations);

  const warnings: string[] = [];
  const [schema] = await q<{ can_create: boolean }>(
    `SELECT has_schema_privilege($1, 'public', 'CREATE') AS can_create`,
    [name],
  );
  if (schema!.can_create) {
    // PostgreSQL before 15 grants CREATE on public to PUBLIC; revoking that affects every role,
    // which is the owner's call, not this command's.
    warnings.push(
      `${name} can still create objects in schema public through PUBLIC; ` +
        `run REVOKE CREATE ON SCHEMA public FROM PUBLIC (the default since PostgreSQL 15)`,
    );
  }
  return { role: name, created, passwordSet: password !== undefined, attributesChanged, tables, sequences, warnings };
}

/**
 * GRANT and REVOKE by a connection that does not own a table only warn, and a grant to PUBLIC
 * (or to a role the runtime role can SET ROLE to) survives any REVOKE from the role: so the
 * outcome is checked, not assumed. Every table must
 * allow what it was granted, and the log tables must not allow changing or emptying them.
 */
async function verifyGrants(
  q: <T extends pg.QueryResultRow>(text: string, params?: unknown[]) => Promise<T[]>,
  name: string,
  relations: { relname: string; relkind: string }[],
): Promise<void> {
  const checks: { t: string; s: boolean; p: string; want: boolean }[] = [];
  for (const { relname, relkind } of relations) {
    if (relkind === "S") {
      checks.push({ t: relname, s: true, p: "USAGE", want: true });
      continue;
    }
    const granted = TABLE_PRIVILEGES[relname] ?? DEFAULT_TABLE_PRIVILEGES;
    for (const p of granted) checks.push({ t: relname, s: false, p, want: true });
    if (TABLE_PRIVILEGES[relname]) {
      for (const p of FORBIDDEN_ON_LOG) if (!granted.includes(p)) checks.push({ t: relname, s: false, p, want: false });
    }
  }
  const wrong = await q<{ t: string; p: string; want: boolean }>(
    `SELECT x.t, x.p, x.want FROM jsonb_to_recordset($2::jsonb) AS x(t text, s boolean, p text, want boolean)
      WHERE CASE WHEN x.s THEN has_sequence_privilege($1, 'public.' || quote_ident(x.t), x.p)
                 WHEN x.want THEN has_table_privilege($1, 'public.' || quote_ident(x.t), x.p)
                 -- Forbidden: not even through a role it may SET ROLE to (NOINHERIT hides those).
                 ELSE EXISTS (SELECT 1 FROM pg_roles r
                               WHERE pg_has_role($1, r.oid, 'MEMBER')
                                 AND has_table_privilege(r.oid, 'public.' || quote_ident(x.t), x.p)) END <> x.want`,
    [name, JSON.stringify(checks)],
  );
  const [schema] = await q<{ usage: boolean }>(`SELECT has_schema_privilege($1, 'public', 'USAGE') AS usage`, [name]);
  if (!schema!.usage) wrong.push({ t: "schema public", p: "USAGE", want: true });
  const functions = await q<{ fn: string }>(
    `SELECT fn FROM unnest($2::text[]) AS fn
      WHERE to_regprocedure('public.' || fn) IS NOT NULL
        AND NOT has_function_privilege($1, to_regprocedure('public.' || fn), 'EXECUTE')`,
    [name, RUNTIME_FUNCTIONS],
  );
  for (const { fn } of functions) wrong.push({ t: `function ${fn}`, p: "EXECUTE", want: true });
  const forbidden = wrong.find((w) => !w.want);
  if (forbidden) {
    throw new RuntimeRoleError(
      `runtime user: ${name} still has ${forbidden.p} on ${forbidden.t} through a grant to PUBLIC or to a ` +
        `role it is a member of; revoke that grant and run this again`,
    );
  }
  const missing = wrong[0];
  if (missing) {
    throw new RuntimeRoleError(
      `could not grant ${missing.p} on ${missing.t} to ${name}: connect as the owner of the tables ` +
        `(MIGRATION_DATABASE_URL) or a superuser`,
    );
  }
}

/**
 * A role that owns the tables, the schema or the database, or can SET ROLE to such an owner or
 * to a superuser (membership, inherited or not), would get around every grant withheld here.
 */
async function refuseOwnerLike(
  q: <T extends pg.QueryResultRow>(text: string, params?: unknown[]) => Promise<T[]>,
  name: string,
): Promise<void> {
  const rows = await q<{ rolname: string; why: string }>(
    `WITH owners AS (
       SELECT oid, 1 AS rank, 'is a superuser' AS why FROM pg_roles WHERE rolsuper
       UNION SELECT oid, 2, 'is the owner connection''s user' FROM pg_roles WHERE rolname = current_user
       UNION SELECT DISTINCT c.relowner, 3, 'owns tables in schema public'
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public'
       UNION SELECT nspowner, 4, 'owns schema public' FROM pg_namespace WHERE nspname = 'public'
       UNION SELECT datdba, 5, 'owns the database' FROM pg_database WHERE datname = current_database()
       UNION SELECT oid, 6, 'may write every table' FROM pg_roles WHERE rolname = 'pg_write_all_data'
     )
     SELECT r.rolname, o.why FROM owners o JOIN pg_roles r ON r.oid = o.oid
      WHERE pg_has_role($1, o.oid, 'MEMBER')
      -- The most telling reason first: the role's own ownership, then the most powerful role.
      ORDER BY r.rolname = $1 DESC, o.rank, r.rolname`,
    [name],
  );
  const first = rows[0];
  if (!first) return;
  throw new RuntimeRoleError(
    first.rolname === name
      ? `runtime user: ${name} ${first.why}; a runtime role must own nothing`
      : `runtime user: ${name} is a member of ${first.rolname}, which ${first.why}; ` +
          `a runtime role must not be able to SET ROLE to it`,
  );
}

/** The user a connection string names (decoded), or null when it names none. */
export function connectionUser(connectionString: string): string | null {
  try {
    const user = decodeURIComponent(new URL(connectionString).username);
    return user || null;
  } catch {
    return null;
  }
}

/** `connectionString` with another user and password (both encoded for the URL). */
export function withCredentials(connectionString: string, user: string, password?: string): string {
  const url = new URL(connectionString);
  url.username = encodeURIComponent(user);
  url.password = password === undefined ? "" : encodeURIComponent(password);
  return url.toString();
}

/**
 * After migrating with MIGRATION_DATABASE_URL: the grants of DATABASE_URL's user refreshed, so
 * tables a new migration created are usable at once. Nothing when both name the same user (one
 * role for everything, as before) or DATABASE_URL names none. Returns what was done, or why not.
 */
export async function refreshRuntimeGrants(
  ownerConnectionString: string,
  runtimeConnectionString: string,
): Promise<{ refreshed: RuntimeRoleResult } | { skipped: string }> {
  const runtimeUser = connectionUser(runtimeConnectionString);
  const ownerUser = connectionUser(ownerConnectionString);
  if (!runtimeUser) return { skipped: "DATABASE_URL names no user" };
  if (runtimeUser === ownerUser) return { skipped: "DATABASE_URL and MIGRATION_DATABASE_URL name the same user" };
  try {
    return { refreshed: await ensureRuntimeRole(ownerConnectionString, { name: runtimeUser, create: false }) };
  } catch (error) {
    if (error instanceof RuntimeRoleError) return { skipped: error.message };
    throw error;
  }
}
