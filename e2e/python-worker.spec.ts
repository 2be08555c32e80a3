import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test, expect, type APIRequestContext } from "@playwright/test";
import { hashToken, newToken } from "@/lib/auth";
import { withConnection } from "../lib/db/connection";
import { migrate } from "../lib/db/migrate";
import { resolveTestServer } from "../testing/db/test-server";
import { type RunningServer, startServer, stopServer } from "./fixtures";

// A worker in another language: examples/python-worker (Python standard library only) reports a
// record through the HTTP API, claims the replay an owner schedules, runs it through its own
// SQLite effect journal and reports the outcome. A second replay of the same effect is
// suppressed, and the effect exists once. The console runs on a database of its own, as in
// consumer-package.spec.ts: `replay --once` drains every due replay, and must not take another
// spec's.

const root = path.resolve(import.meta.dirname, "..");
const workerDir = path.join(root, "examples", "python-worker");
const PYTHON = process.env.PYTHON ?? "python3";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** python3's version when it is 3.9 or newer, else why not. */
function pythonProblem(): string | null {
  const probe = spawnSync(PYTHON, ["-c", "import sys; print('%d.%d' % sys.version_info[:2])"], { encoding: "utf8" });
  if (probe.error || probe.status !== 0) return `${PYTHON} is not installed (the Python worker needs python3 >= 3.9)`;
  const [major, minor] = probe.stdout.trim().split(".").map(Number);
  return major! > 3 || (major === 3 && minor! >= 9)
    ? null
    : `${PYTHON} is ${probe.stdout.trim()}; the worker needs >= 3.9`;
}

let server: RunningServer | undefined;
let dropDatabase: (() => Promise<void>) | undefined;
let journalDir: string | undefined;
const consumerName = `python-worker-${randomBytes(4).toString("hex")}`;
const workerId = `${consumerName}@e2e`;
const tokens = { consumer: newToken(), owner: newToken() };
const as = (role: keyof typeof tokens) => ({ authorization: `Bearer ${tokens[role]}` });

/** Runs worker.py with the console, token and journal of this spec; `onStart` gets the process. */
function worker(
  args: string[],
  env: Record<string, string> = {},
  onStart?: (child: ReturnType<typeof spawn>) => void,
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, [path.join(workerDir, "worker.py"), ...args], {
      cwd: journalDir,
      env: {
        ...process.env,
        REVIEW_CONSOLE_URL: server!.baseURL,
        REVIEW_CONSOLE_TOKEN: tokens.consumer,
        REVIEW_WORKER_ID: workerId,
        REVIEW_WORKER_JOURNAL: path.join(journalDir!, "effects.sqlite3"),
        ...env,
      },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    onStart?.(child);
  });
}

const lastLine = (text: string) => text.trim().split("\n").at(-1) ?? "";

test.beforeAll(async () => {
  test.setTimeout(120_000);
  const problem = pythonProblem();
  // CI has python3; a person's machine may not, and then this spec says why it did not run.
  if (problem && process.env.CI) throw new Error(problem);
  test.skip(problem !== null, problem ?? "");

  const pgServer = await resolveTestServer();
  const name = `rc_e2e_python_${randomBytes(4).toString("hex")}`;
  const url = new URL(pgServer.serverUrl);
  url.pathname = `/${name}`;
  await withConnection(pgServer.serverUrl, (c) => c.query(`CREATE DATABASE ${name}`));
  dropDatabase = async () => {
    await withConnection(pgServer.serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    await pgServer.stop();
  };
  await migrate(url.toString());
  for (const [role, token] of Object.entries(tokens)) {
    await withConnection(url.toString(), (c) =>
      c.query(`INSERT INTO api_tokens (name, role, token_hash, prefix) VALUES ($1, $2::"Role", $3, $4)`, [
        role === "consumer" ? consumerName : `${consumerName}-owner`,
        role,
        hashToken(token),
        token.slice(0, 12),
      ]),
    );
  }
  server = await startServer(url.toString(), randomBytes(32).toString("base64url"));
  journalDir = mkdtempSync(path.join(tmpdir(), "rc-python-worker-"));
});

test.afterAll(async () => {
  if (server) await stopServer(server.child);
  await dropDatabase?.();
  if (journalDir) rmSync(journalDir, { recursive: true, force: true });
});

test("the worker's own tests pass (HTTP retries and refusals, the journal's decisions)", async () => {
  const run = spawnSync(PYTHON, ["-m", "unittest", "discover", "-s", workerDir], { encoding: "utf8" });
  expect(run.status, run.stderr).toBe(0);
  expect(run.stderr).toMatch(/Ran \d+ tests[\s\S]*\nOK/);
});

async function record(request: APIRequestContext, id: string) {
  const response = await request.get(`${server!.baseURL}/api/v1/reviews/${id}`, { headers: as("owner") });
  expect(response.status(), await response.text()).toBe(200);
  return (await response.json()) as {
    status: string;
    version: number;
    category: string;
    reason: string;
    effectKey: string;
    message: unknown;
    source: unknown;
    history: { actor: string; action: string }[];
    replays: { id: string; state: string; claimedBy: string | null; detail: string | null }[];
  };
}

async function scheduleReplay(request: APIRequestContext, id: string): Promise<void> {
  const { version } = await record(request, id);
  const response = await request.post(`${server!.baseURL}/api/v1/reviews/${id}/actions`, {
    headers: as("owner"),
    data: { action: "replay", expectedVersion: version, checkDone: true, reason: "e2e: the invoice service is back" },
  });
  expect(response.status(), await response.text()).toBe(200);
  expect((await record(request, id)).status).toBe("replay-scheduled");
}

async function decisions(request: APIRequestContext, reviewId: string) {
  const response = await request.get(`${server!.baseURL}/api/v1/audit?reviewId=${reviewId}`, { headers: as("owner") });
  expect(response.status(), await response.text()).toBe(200);
  return ((await response.json()) as { items: { action: string; actor: string; effectKey: string | null }[] }).items;
}

test("reports a record, runs the replay an owner schedules once, and suppresses a second replay of the effect", async ({
  request,
}) => {
  const tag = randomBytes(4).toString("hex");
  const effectKey = `invoice-${tag}:reminder`;
  const report = (messageId: string) =>
    worker([
      "report",
      ...["--id", messageId, "--effect-key", effectKey, "--sequence-key", `invoice-${tag}`, "--sequence", "1"],
      ...["--payload", JSON.stringify({ schema: "2021-03", invoiceId: tag })],
      ...["--reason", "retry-limit", "--attempts", "2", "--last-error", "dependency-not-ready: invoice service 503"],
      ...["--queue", "invoices"],
    ]);

  // Two copies of one message (the producer sent it twice), both held while the invoice service was down.
  const first = await report(`msg-${tag}`);
  expect(first.code, first.stderr).toBe(0);
  const firstId = lastLine(first.stdout);
  expect(firstId).toMatch(UUID);
  const copy = await report(`msg-${tag}-again`);
  expect(copy.code, copy.stderr).toBe(0);
  const copyId = lastLine(copy.stdout);
  expect(copyId).toMatch(UUID);
  expect(copyId).not.toBe(firstId);

  const reported = await record(request, firstId);
  expect(reported).toMatchObject({
    status: "open",
    category: "manual-review",
    reason: "retry-limit",
    effectKey,
    source: { transport: "python-worker", queue: "invoices", consumer: workerId },
    message: {
      id: `msg-${tag}`,
      kind: "invoice.reminder",
      effectKey,
      sequenceKey: `invoice-${tag}`,
      sequence: 1,
      payload: { schema: "2021-03", invoiceId: tag },
    },
  });
  expect(reported.history[0]).toMatchObject({ action: "reported", actor: `token:${consumerName}` });

  // The owner schedules a replay; the worker claims it, does the effect and reports `applied`.
  await scheduleReplay(request, firstId);
  const applied = await worker(["replay", "--once"]);
  expect(applied.code, applied.stderr).toBe(0);
  expect(JSON.parse(lastLine(applied.stdout)), applied.stderr).toEqual({
    applied: 1,
    "duplicate-suppressed": 0,
    routed: 0,
    failed: 0,
    unreported: 0,
  });
  const resolved = await record(request, firstId);
  expect(resolved.status).toBe("resolved");
  expect(resolved.replays).toHaveLength(1);
  expect(resolved.replays[0]).toMatchObject({ state: "applied", claimedBy: workerId });
  expect(resolved.replays[0]!.detail).toContain(`reminder for invoice ${tag} queued`);
  expect(await decisions(request, firstId)).toContainEqual(
    expect.objectContaining({ action: "replay.applied", actor: `token:${consumerName}`, effectKey }),
  );

  // The copy's replay finds the effect in the journal: suppressed, not done again.
  await scheduleReplay(request, copyId);
  const suppressed = await worker(["replay", "--once"]);
  expect(suppressed.code, suppressed.stderr).toBe(0);
  expect(JSON.parse(lastLine(suppressed.stdout))).toMatchObject({ applied: 0, "duplicate-suppressed": 1 });
  const copyRecord = await record(request, copyId);
  expect(copyRecord.status).toBe("resolved");
  expect(copyRecord.replays[0]).toMatchObject({ state: "duplicate-suppressed" });
  expect(copyRecord.replays[0]!.detail).toContain(`message msg-${tag}`);
  expect(await decisions(request, copyId)).toContainEqual(
    expect.objectContaining({ action: "replay.duplicate-suppressed", effectKey }),
  );

  // The journal has the effect once, applied by the first replay, and the effect happened once.
  const journal = await worker(["journal", "--effect-key", effectKey]);
  expect(journal.code, journal.stderr).toBe(0);
  const entries = journal.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(entries).toEqual([
    expect.objectContaining({
      effect_key: effectKey,
      message_id: `msg-${tag}`,
      replay_id: resolved.replays[0]!.id,
      effects: 1,
    }),
  ]);
});

test("a refused report names the field; a token of the wrong role says which role it needs", async () => {
  const tag = randomBytes(4).toString("hex");
  const args = [
    "report",
    ...["--id", `msg-${tag}`, "--effect-key", `invoice-${tag}:reminder`, "--sequence-key", `invoice-${tag}`],
    ...["--sequence", "1", "--payload", JSON.stringify({ schema: "2021-03", invoiceId: tag })],
  ];
  // The console allows 200 characters of reason; the worker does not check that itself.
  const tooLong = await worker([...args, "--reason", "r".repeat(201)]);
  expect(tooLong.code).toBe(3);
  expect(tooLong.stdout).toBe("");
  expect(tooLong.stderr).toContain("POST /api/v1/reviews was refused: 400 invalid-request");
  expect(tooLong.stderr).toMatch(/field reason: /);

  const wrongRole = await worker([...args, "--reason", "retry-limit"], { REVIEW_CONSOLE_TOKEN: tokens.owner });
  expect(wrongRole.code).toBe(3);
  expect(wrongRole.stderr).toContain("was refused: 403");
  expect(wrongRole.stderr).toContain("needs a token with the consumer role");
});

test("the replay loop exits cleanly on SIGTERM", async () => {
  let sent = false;
  let sentAt = 0;
  const run = await worker(["replay", "--poll-seconds", "30"], { REVIEW_WORKER_LOG_LEVEL: "INFO" }, (child) => {
    // Once it logs that it runs, it is waiting for replays (none is due): stop it there.
    child.stderr!.on("data", (chunk: Buffer) => {
      if (!sent && chunk.toString().includes("replaying as")) {
        sent = true;
        setTimeout(() => {
          sentAt = Date.now();
          child.kill("SIGTERM");
        }, 500);
      }
    });
  });
  expect(sent, run.stderr).toBe(true);
  // Well before its 30 s pause would have ended.
  expect(Date.now() - sentAt).toBeLessThan(10_000);
  expect(run.code, run.stderr).toBe(0);
  expect(run.stderr).toContain("SIGTERM: stopping after the current replay");
  expect(JSON.parse(lastLine(run.stdout))).toMatchObject({ applied: 0, unreported: 0 });
});
