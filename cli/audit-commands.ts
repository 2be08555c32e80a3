import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Command } from "commander";
import { config } from "@/lib/config";
import {
  type Checkpoint,
  generateCheckpointKeys,
  loadPrivateKey,
  loadPublicKey,
  parseCheckpoints,
  signatureProblem,
  checkCheckpointsAgainstLog,
  createCheckpoint,
  type ChainVerdict,
  verifyDecisionLog,
  verifyArchiveText,
} from "@/lib/audit";
import { ARCHIVE_DIR_SETTING } from "./archive-commands";

/** The setting that names the public checkpoint key for `audit verify --file` without --key. */
export const CHECKPOINT_PUBLIC_KEY_SETTING = "CHECKPOINT_PUBLIC_KEY_FILE";

/** cli/main.ts's runner: DATABASE_URL or the embedded database, migrated, closed after. */
export type WithDatabase = <T>(fn: (url: string) => Promise<T>) => Promise<T>;

// Errors thrown here are printed by cli/main.ts as one `error: …` line with exit code 1.

async function readText(file: string, what: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    throw new Error(`cannot read ${what} ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

function chainLine(verdict: ChainVerdict): string {
  return verdict.ok
    ? `ok ${verdict.entries} entries`
    : `broken at entry ${verdict.brokenSeq}: ${verdict.problem} (${verdict.entries} entries)`;
}

const describe = (c: Checkpoint) => `entry ${c.seq} (signed ${c.signedAt})`;

/**
 * `audit verify --checkpoint FILE --key public.pem [--archive-dir DIR]`: signatures first, then
 * the live log; a checkpoint of an archived entry is checked against its month's archive file in
 * DIR (the same key signed it).
 */
async function verifyWithCheckpoints(
  withDatabase: WithDatabase,
  file: string,
  keyFile: string,
  archiveDir: string,
): Promise<void> {
  const publicKey = loadPublicKey(await readText(keyFile, "public key"));
  const checkpoints = parseCheckpoints(await readText(file, "checkpoint file"));
  // A line that does not verify is not evidence of anything: stop before asking the database.
  const forged = checkpoints.flatMap((c) => {
    const problem = signatureProblem(c, publicKey);
    return problem ? [`checkpoint FAILED: ${describe(c)}: ${problem}`] : [];
  });
  if (forged.length > 0) {
    for (const line of forged) console.log(line);
    process.exitCode = 1;
    return;
  }

  const { verdict, problems, archivedIn } = await withDatabase((url) =>
    checkCheckpointsAgainstLog(url, checkpoints, { dir: archiveDir, publicKey }),
  );
  const failed = checkpoints.flatMap((c, i) =>
    problems[i] ? [`checkpoint FAILED: ${describe(c)}: ${problems[i]}`] : [],
  );
  if (failed.length === 0 && verdict.ok) {
    const latestAt = checkpoints.reduce((a, b, i) => (b.seq > checkpoints[a]!.seq ? i : a), 0);
    const latest = checkpoints[latestAt]!;
    const archived = archivedIn.filter((f) => f !== null).length;
    const where = archivedIn[latestAt] ? `in the archive ${archivedIn[latestAt]}` : "in the log";
    console.log(chainLine(verdict));
    console.log(
      `checkpoint ok: ${describe(latest)} with key ${latest.keyId.slice(0, 16)}… is still ${where} with the signed hash` +
        (checkpoints.length > 1
          ? ` (${checkpoints.length} checkpoints, all held${archived > 0 ? `, ${archived} of them in archive files` : ""})`
          : ""),
    );
    return;
  }
  for (const line of failed) console.log(line);
  if (verdict.ok) {
    // The rewrite was done carefully (every hash recomputed, the head reset): only the
    // checkpoint tells. Say so, so nobody reads "ok" into it.
    console.log(`the chain's own links are intact (${verdict.entries} entries): they were recomputed after the change`);
  } else {
    console.log(chainLine(verdict));
  }
  process.exitCode = 1;
}

/**
 * `audit verify --file F`: the archive file alone (lib/audit/archive-file.ts): links,
 * numbering, every hash recomputed, and the signed checkpoint at its end. The database is not
 * asked: the file is evidence on its own.
 */
async function verifyArchiveFile(file: string, keyFile: string | undefined): Promise<void> {
  if (!keyFile) {
    throw new Error(
      `--file checks the archive's signed checkpoint: give --key public.pem or set ${CHECKPOINT_PUBLIC_KEY_SETTING}`,
    );
  }
  const publicKey = loadPublicKey(await readText(keyFile, "public key"));
  const verdict = verifyArchiveText(await readText(file, "archive file"), publicKey);
  if (verdict.ok) {
    console.log(`ok ${verdict.entries} entries`);
    console.log(
      `archive ${verdict.header.month}: seq ${verdict.header.firstSeq}..${verdict.header.lastSeq}, ` +
        `last hash ${verdict.lastHash}, checkpoint signed ${verdict.checkpoint.signedAt} with key ` +
        `${verdict.checkpoint.keyId.slice(0, 16)}…`,
    );
    return;
  }
  console.log(`broken at line ${verdict.line}: ${verdict.problem}`);
  process.exitCode = 1;
}

/** The `audit` command group: verify, keygen, checkpoint (docs/threat-model.md). */
export function registerAuditCommands(program: Command, withDatabase: WithDatabase): void {
  const audit = program.command("audit").description("the decision log");

  audit
    .command("verify")
    .description(
      "check the decision log's hash chain (every hash recomputed here); with --checkpoint, also that " +
        "the log still holds each signed checkpoint's entry",
    )
    .option("--checkpoint <file>", "checkpoint lines printed by `audit checkpoint`, kept outside the database")
    .option(
      "--file <archive>",
      "check an archive file written by `review-console archive` on its own, without the database",
    )
    .option(
      "--key <public.pem>",
      `the public key the checkpoints were signed with (for --file, default: $${CHECKPOINT_PUBLIC_KEY_SETTING})`,
    )
    .option(
      "--archive-dir <dir>",
      `with --checkpoint: where archived months' files are (default: $${ARCHIVE_DIR_SETTING}, else ./archive)`,
    )
    .action(async (options: { checkpoint?: string; file?: string; key?: string; archiveDir?: string }) => {
      if (options.file) {
        if (options.checkpoint) throw new Error("--file and --checkpoint are separate checks: give one");
        await verifyArchiveFile(options.file, options.key ?? config().CHECKPOINT_PUBLIC_KEY_FILE);
        return;
      }
      if (options.checkpoint || options.key) {
        if (!options.checkpoint || !options.key) throw new Error("--checkpoint and --key go together");
        const archiveDir = options.archiveDir ?? config().ARCHIVE_DIR ?? "archive";
        await verifyWithCheckpoints(withDatabase, options.checkpoint, options.key, archiveDir);
        return;
      }
      const verdict = await withDatabase((url) => verifyDecisionLog(url));
      console.log(chainLine(verdict));
      if (!verdict.ok) process.exitCode = 1;
    });

  audit
    .command("keygen")
    .description("make an Ed25519 key pair for checkpoints: DIR/private.pem (mode 0600) and DIR/public.pem")
    .requiredOption("--out <dir>", "where to write the two files (keep it off the database host)")
    .action(async (options: { out: string }) => {
      const privateFile = path.join(options.out, "private.pem");
      const publicFile = path.join(options.out, "public.pem");
      for (const file of [privateFile, publicFile]) {
        if (await exists(file)) throw new Error(`${file} exists; not overwriting a key`);
      }
      const keys = generateCheckpointKeys();
      await mkdir(options.out, { recursive: true, mode: 0o700 });
      // "wx": fails if the file appeared meanwhile, so a key is never overwritten.
      await writeFile(privateFile, keys.privatePem, { mode: 0o600, flag: "wx" });
      await writeFile(publicFile, keys.publicPem, { mode: 0o644, flag: "wx" });
      console.log(`wrote ${privateFile} (mode 0600) and ${publicFile}`);
      console.log(`key id ${keys.keyId}`);
    });

  audit
    .command("checkpoint")
    .description(
      "verify the chain, sign its last entry and print the checkpoint as one JSON line (also stored in " +
        "the database); append the line to a file the database owner cannot write",
    )
    .requiredOption("--key <private.pem>", "the private key from `audit keygen`")
    .action(async (options: { key: string }) => {
      const privateKey = loadPrivateKey(await readText(options.key, "private key"));
      const result = await withDatabase((url) => createCheckpoint(url, privateKey));
      if (!result.ok) throw new Error(result.problem);
      console.log(JSON.stringify(result.checkpoint));
    });
}
