import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type EmbeddedDatabase, startEmbeddedPostgres } from "@/lib/db/embedded";

// `npm test` starts the embedded server and then runs vitest and Playwright with spawnSync: the
// parent's event loop is blocked for the whole run. A server whose log went through a pipe to
// that parent blocked on its next line once the pipe was full (a whole suite hung at 0.05 load).
// Here the parent (this test) blocks in a synchronous child while that child makes the server
// log far more than a pipe holds (64 KiB): 20,000 LOG lines of about 100 bytes.

let scratch: string;
let server: EmbeddedDatabase;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), "rc-embedded-log-"));
  // As root, the server runs as the `postgres` user, which must reach its data directory.
  await import("node:fs/promises").then((fs) => fs.chmod(scratch, 0o755));
  server = await startEmbeddedPostgres({ dataDir: path.join(scratch, "pg"), fast: true });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await rm(scratch, { recursive: true, force: true });
});

it("a server that logs more than a pipe holds does not block while its parent waits on a synchronous child", () => {
  const script = `
    const pg = require("pg");
    const client = new pg.Client({ connectionString: process.argv[1] });
    client.connect()
      .then(() => client.query("DO $$ BEGIN FOR i IN 1..20000 LOOP RAISE LOG 'embedded-log-test line % %', i, repeat('x', 80); END LOOP; END $$"))
      .then(() => client.end())
      .then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
  `;
  const started = Date.now();
  const child = spawnSync(process.execPath, ["-e", script, server.serverUrl], {
    cwd: path.resolve(import.meta.dirname, "../.."),
    timeout: 30_000,
    encoding: "utf8",
  });
  const seconds = (Date.now() - started) / 1000;
  expect(child.signal, `the child was killed after ${seconds} s: the server blocked on its log`).toBeNull();
  expect(child.status, child.stderr).toBe(0);
  expect(seconds).toBeLessThan(15);
}, 60_000);
