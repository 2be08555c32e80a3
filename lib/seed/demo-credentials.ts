import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { DATA_DIR } from "@/lib/db/local";
import { type DemoCredentials, isEmpty, seedDemo } from "./demo";

/** Where the demo's sign-ins are kept after the seeding printed them (mode 0600). */
export const DEMO_CREDENTIALS_FILE = path.join(DATA_DIR, "demo-credentials.json");

/**
 * The demo's sign-ins: seeds the demo set when `seed` and the database is empty (and keeps its
 * sign-ins), else the ones kept from an earlier seeding, else null. Shared by `npm start` and
 * `npm run demo`, so either may be the first to start.
 */
export async function demoCredentials(seed: boolean): Promise<DemoCredentials | null> {
  if (seed && (await isEmpty())) {
    const credentials = await seedDemo();
    // With DATABASE_URL on a fresh clone nothing has made the data dir yet.
    await mkdir(DATA_DIR, { recursive: true });
    await writeFile(DEMO_CREDENTIALS_FILE, JSON.stringify(credentials, null, 2), { mode: 0o600 });
    return credentials;
  }
  if (!existsSync(DEMO_CREDENTIALS_FILE)) return null;
  return JSON.parse(await readFile(DEMO_CREDENTIALS_FILE, "utf8")) as DemoCredentials;
}
