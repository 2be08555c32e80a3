import { mkdir, readFile } from "node:fs/promises";
import type { Command } from "commander";
import { config } from "@/lib/config";
import { loadPrivateKey } from "@/lib/audit";
import { archiveDecisionLog, type ArchivedMonth, archiveFinishedRecords, finishedRecordsCutoff } from "@/lib/retention";

/** The owner's database (MIGRATION_DATABASE_URL, else DATABASE_URL or the embedded one), migrated. */
export type WithOwnerDatabase = <T>(fn: (ownerUrl: string) => Promise<T>) => Promise<T>;

/** The setting that names the private checkpoint key when --key is not given. */
export const CHECKPOINT_KEY_SETTING = "CHECKPOINT_PRIVATE_KEY_FILE";
/** Where archive files go when --dir is not given (else ./archive). */
export const ARCHIVE_DIR_SETTING = "ARCHIVE_DIR";

export interface ArchiveRun {
  before: string;
  dir: string;
  ownerUrl: string;
}

/**
 * The finished records (resolved, cancelled) of the same months, with their history, revisions,
 * replays and operation items (lib/retention/finished-records.ts, ADR 0024). Open records are
 * never taken; those a running operation or a pending replay holds wait for a later run.
 */
async function archiveFinishedRecordsOf(run: ArchiveRun): Promise<void> {
  const result = await archiveFinishedRecords(run.ownerUrl, { before: run.before, dir: run.dir });
  for (const m of result.months) {
    console.log(
      `finished records ${m.month} part ${m.part}: ${m.records} records written to ${m.file} (sha256 ${m.sha256})`,
    );
  }
  if (result.heldBack > 0) {
    console.log(`${result.heldBack} finished records held back by running operations or pending replays`);
  }
}

function describe(month: ArchivedMonth): string {
  if (month.file === null) return `${month.month}: no entries; its empty partition dropped`;
  return (
    `${month.month}: ${month.entries} entries (seq ${month.firstSeq}..${month.lastSeq}) written to ${month.file} ` +
    `(sha256 ${month.sha256}); partition dropped`
  );
}

/** `review-console archive --before YYYY-MM [--dir DIR] [--key private.pem]`. */
export function registerArchiveCommands(program: Command, withOwnerDatabase: WithOwnerDatabase): void {
  program
    .command("archive")
    .description(
      "move every full month of the decision log before --before into DIR/decision-log-YYYY-MM.ndjson (its chain " +
        "segment and a signed checkpoint of its last entry; `audit verify --file` checks it alone), then drop the " +
        "month from the database; the live chain continues from it. Finished records (resolved, cancelled) of those " +
        "months go to DIR/finished-records-YYYY-MM.ndjson and leave the live tables; open records stay",
    )
    .option(
      "--before <YYYY-MM>",
      "archive the months before this one (at most the current month; default: the current month minus $RETENTION_FINISHED_MONTHS, else 12)",
    )
    .option("--dir <dir>", `where the files go (default: $${ARCHIVE_DIR_SETTING}, else ./archive)`)
    .option("--key <private.pem>", `the checkpoint key from \`audit keygen\` (default: $${CHECKPOINT_KEY_SETTING})`)
    .action(async (options: { before?: string; dir?: string; key?: string }) => {
      // Without --before, the retention setting says where; a given month is checked by the log archive.
      const before = options.before ?? finishedRecordsCutoff({});
      const keyFile = options.key ?? config().CHECKPOINT_PRIVATE_KEY_FILE;
      if (!keyFile) {
        throw new Error(
          `archive signs each file's last entry: give --key private.pem or set ${CHECKPOINT_KEY_SETTING} ` +
            "(make a key pair with `review-console audit keygen`)",
        );
      }
      let pem: string;
      try {
        pem = await readFile(keyFile, "utf8");
      } catch (error) {
        throw new Error(
          `cannot read private key ${keyFile}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
        );
      }
      const privateKey = loadPrivateKey(pem);
      const dir = options.dir ?? config().ARCHIVE_DIR ?? "archive";
      await mkdir(dir, { recursive: true });
      await withOwnerDatabase(async (ownerUrl) => {
        const months = await archiveDecisionLog(ownerUrl, {
          before,
          dir,
          privateKey,
          onMonth: (month) => console.log(describe(month)),
          onMoved: (month, entries) =>
            console.log(`${month}: ${entries} entries moved from decision_log_default to a partition of their own`),
        });
        await archiveFinishedRecordsOf({ before, dir, ownerUrl });
        console.log(`ok ${months.filter((m) => m.file).length} months archived before ${before}`);
      });
    });
}
