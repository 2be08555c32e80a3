import type { Command } from "commander";
import { config, databaseUrl } from "@/lib/config";
import { localDatabase, migrationDatabaseUrl } from "@/lib/db/local";
import { migrate } from "@/lib/db/migrate";
import { checkRoleName, ensureRuntimeRole, refreshRuntimeGrants, RuntimeRoleError } from "@/lib/db/roles";

/** The owner's connection: MIGRATION_DATABASE_URL, else DATABASE_URL, else the embedded database. */
export async function ownerDatabase(): Promise<{ url: string; release: () => Promise<void> }> {
  const explicit = config().MIGRATION_DATABASE_URL;
  if (explicit) return { url: explicit, release: async () => {} };
  return localDatabase();
}

/**
 * Migrations for a command that then works as `runtimeUrl`: with the owner's connection when
 * MIGRATION_DATABASE_URL is set. A runtime role finds nothing pending on a migrated database but
 * cannot apply a migration, so that failure says what to set instead of "permission denied".
 */
export async function migrateAsOwner(runtimeUrl: string): Promise<void> {
  const url = migrationDatabaseUrl(runtimeUrl);
  try {
    await migrate(url);
  } catch (error) {
    if ((error as { code?: string }).code === "42501" && url === runtimeUrl) {
      throw new Error(
        "DATABASE_URL's user may not migrate (a runtime role?): set MIGRATION_DATABASE_URL to the owner's connection",
        { cause: error },
      );
    }
    throw error;
  }
}

/**
 * After `migrate` with separate roles (MIGRATION_DATABASE_URL and DATABASE_URL naming different
 * users): tables the migrations created get the runtime role's grants at once, instead of
 * failing the console until someone remembers `db roles`.
 */
export async function refreshGrantsAfterMigrate(ownerUrl: string): Promise<void> {
  const runtimeUrl = databaseUrl();
  if (!config().MIGRATION_DATABASE_URL || !runtimeUrl) return;
  const grants = await refreshRuntimeGrants(ownerUrl, runtimeUrl);
  if ("refreshed" in grants) console.log(`granted runtime role ${grants.refreshed.role}`);
  else console.log(`runtime grants not refreshed: ${grants.skipped}`);
}

/**
 * `review-console db roles --runtime-user NAME [--password P]`: the least-privilege role the
 * console and workers connect as (lib/db/roles.ts), created if missing, its grants applied again.
 * Scripts depend on the command's name and options. The password is never printed.
 */
export function registerDbCommands(program: Command, fail: (message: string) => Error): void {
  const dbCommand = program.command("db").description("database roles");
  dbCommand
    .command("roles")
    .description(
      "create the runtime role (if missing) and grant it what the console needs, with the owner's " +
        "connection (MIGRATION_DATABASE_URL, else DATABASE_URL); run again after migrations",
    )
    .requiredOption("--runtime-user <name>", "the role DATABASE_URL of the console and workers names")
    .option("--password <password>", "set its password (else REVIEW_RUNTIME_PASSWORD; else left as it is)")
    .action(async (options: { runtimeUser: string; password?: string }) => {
      const name = options.runtimeUser.trim();
      const problem = checkRoleName(name);
      if (problem) throw fail(`--runtime-user: ${problem}`);
      // An option ends up in shell history; the environment variable does not.
      const password = options.password ?? config().REVIEW_RUNTIME_PASSWORD;
      if (password !== undefined && password.length === 0) throw fail("--password: must not be empty");
      const database = await ownerDatabase();
      try {
        // The grants cover the tables that exist: the schema first.
        await migrate(database.url);
        const result = await ensureRuntimeRole(database.url, { name, password });
        console.log(`${result.created ? "created" : "kept"} role ${name}${result.passwordSet ? ", password set" : ""}`);
        if (result.attributesChanged.length > 0) console.log(`changed: ${result.attributesChanged.join(" ")}`);
        const byGrant = new Map<string, string[]>();
        for (const t of result.tables) {
          const key = t.privileges.join(", ");
          byGrant.set(key, [...(byGrant.get(key) ?? []), t.name]);
        }
        for (const [privileges, names] of byGrant) console.log(`${privileges}: ${names.join(" ")}`);
        console.log(`USAGE, SELECT: ${result.sequences} sequences`);
        for (const warning of result.warnings) console.log(`warning: ${warning}`);
        console.log(`ok ${name}: ${result.tables.length} tables granted`);
      } catch (error) {
        if (error instanceof RuntimeRoleError) throw fail(error.message);
        throw error;
      } finally {
        await database.release();
      }
    });
}
