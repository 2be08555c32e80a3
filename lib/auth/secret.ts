import { randomBytes } from "node:crypto";
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { config } from "@/lib/config";
import { log } from "@/lib/log";

/**
 * The key Better Auth signs session cookies with: BETTER_AUTH_SECRET when set (required when
 * several machines serve the console: they must agree). Otherwise a random key kept in the data
 * folder (`.data/auth-secret`, or REVIEW_CONSOLE_DATA_DIR), made on first use, so that
 * `npm start` works with nothing configured and sessions survive a restart.
 */
export function authSecret(): string {
  const configured = config().BETTER_AUTH_SECRET;
  if (configured) return configured;
  // cwd, not this file's folder: inside Next's bundle the module lives under .next/. A runtime
  // path: the ignore comment keeps Next from tracing the whole project for it.
  const dir = path.resolve(
    /*turbopackIgnore: true*/ config().REVIEW_CONSOLE_DATA_DIR ?? path.join(process.cwd(), ".data"),
  );
  const file = path.join(dir, "auth-secret");
  try {
    return readSecretFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  mkdirSync(dir, { recursive: true });
  // Written aside, then linked into place: link fails when the file exists, so when two
  // processes start at once one key wins, and no process can read a half-written file.
  const draft = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
  writeFileSync(draft, `${randomBytes(32).toString("base64url")}\n`, { mode: 0o600 });
  try {
    linkSync(draft, file);
    log.info({ file }, "BETTER_AUTH_SECRET is not set: created a session signing key");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    rmSync(draft, { force: true });
  }
  return readSecretFile(file);
}

function readSecretFile(file: string): string {
  const secret = readFileSync(file, "utf8").trim();
  if (secret.length < 32) throw new Error(`${file} holds no usable secret (at least 32 characters)`);
  return secret;
}
