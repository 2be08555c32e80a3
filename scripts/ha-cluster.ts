import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chown, mkdir, open, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import { sleep } from "@review-console/consumer";
import { freePort } from "@/lib/net/local-server";
import { killOnExit } from "./fleet";
import { exited, listening, until } from "./own-brokers";

// The high-availability PostgreSQL `npm run test:failover` owns: one etcd member, two PostgreSQL 15
// nodes each managed by Patroni, and HAProxy in front of them (and of the consoles), all on free
// ports of their own with their data in the test's scratch directory. Everything is configured
// from the files in deploy/ha/, the ones a team would install, filled in per node: what is tested
// is what is shipped. No HA logic here: Patroni decides, this only starts, kills and asks.

const ROOT = path.resolve(import.meta.dirname, "..");
const TEMPLATES = path.join(ROOT, "deploy", "ha");
export const PG_BIN = "/usr/lib/postgresql/15/bin";

/** The commands the cluster needs (Debian: patroni, etcd-server, haproxy, postgresql-15). */
export const HA_COMMANDS = ["patroni", "patronictl", "etcd", "haproxy", `${PG_BIN}/postgres`];

/** `deploy/ha/<file>` with every `{{NAME}}` replaced; a placeholder left unfilled is an error. */
export async function renderTemplate(file: string, values: Record<string, string | number>): Promise<string> {
  const text = await readFile(path.join(TEMPLATES, file), "utf8");
  const missing = new Set<string>();
  const rendered = text.replace(/\{\{([A-Z0-9_]+)\}\}/g, (_, name: string) => {
    if (!(name in values)) missing.add(name);
    return String(values[name] ?? "");
  });
  if (missing.size > 0) throw new Error(`deploy/ha/${file}: no value for ${[...missing].join(", ")}`);
  return rendered;
}

/** A process whose output goes to a log file in the scratch directory (read when something fails). */
async function spawnLogged(
  command: string,
  args: string[],
  log: string,
  options: { uid?: number; gid?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<ChildProcess> {
  const file = await open(log, "a");
  const child = spawn(command, args, { stdio: ["ignore", file.fd, file.fd], ...options });
  child.once("exit", () => void file.close());
  killOnExit(child);
  return child;
}

/** The `postgres` user's ids when this runs as root: PostgreSQL refuses to run as root. */
function postgresUser(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const uid = Number(spawnSync("id", ["-u", "postgres"], { encoding: "utf8" }).stdout.trim());
  const gid = Number(spawnSync("id", ["-g", "postgres"], { encoding: "utf8" }).stdout.trim());
  if (!Number.isInteger(uid) || uid <= 0) throw new Error("running as root, but there is no `postgres` user");
  return { uid, gid };
}

/** What Patroni's REST API says of a member (GET /cluster). */
export interface Member {
  name: string;
  role: string;
  state: string;
  timeline?: number;
  lag?: number | string;
}

/** One database node: Patroni and the PostgreSQL it manages. */
export class PatroniNode {
  private child: ChildProcess | null = null;
  readonly config: string;
  readonly dataDir: string;
  readonly log: string;

  constructor(
    readonly name: string,
    readonly pgPort: number,
    readonly apiPort: number,
    readonly dir: string,
  ) {
    this.config = path.join(dir, "patroni.yml");
    this.dataDir = path.join(dir, "data");
    this.log = path.join(dir, "patroni.log");
  }

  get apiUrl(): string {
    return `http://127.0.0.1:${this.apiPort}`;
  }

  async write(synchronousMode: boolean, values: Record<string, string | number>): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const shipped = "synchronous_mode: true";
    const rendered = await renderTemplate("patroni.yml", {
      ...values,
      NAME: this.name,
      HOST: "127.0.0.1",
      API_PORT: this.apiPort,
      PG_PORT: this.pgPort,
      DATA_DIR: this.dataDir,
      PGPASS: path.join(this.dir, "pgpass"),
      SOCKET_DIR: this.dir,
    });
    if (!rendered.includes(shipped)) throw new Error(`deploy/ha/patroni.yml: no \`${shipped}\``);
    await writeFile(this.config, synchronousMode ? rendered : rendered.replace(shipped, "synchronous_mode: false"));
    const user = postgresUser();
    if (user) {
      await chown(this.dir, user.uid, user.gid);
      await chown(this.config, user.uid, user.gid);
    }
  }

  async start(): Promise<void> {
    const user = postgresUser();
    this.child = await spawnLogged("patroni", [this.config], this.log, {
      ...(user ?? {}),
      env: { ...process.env, HOME: this.dir },
    });
  }

  /** Patroni's pid, and the postmaster's (from its pid file; null when none runs). */
  async postmasterPid(): Promise<number | null> {
    try {
      const pid = Number((await readFile(path.join(this.dataDir, "postmaster.pid"), "utf8")).split("\n")[0]);
      process.kill(pid, 0);
      return pid;
    } catch {
      return null;
    }
  }

  /** SIGKILL of the postmaster alone: its Patroni, alive, starts it again. */
  async killPostmaster(): Promise<number> {
    const pid = await this.postmasterPid();
    if (!pid) throw new Error(`${this.name}: no postmaster running`);
    process.kill(pid, "SIGKILL");
    return pid;
  }

  /**
   * The node dies: SIGKILL of Patroni, the postmaster and every backend at once (as a host that
   * loses power; a backend left alone would notice its postmaster gone and exit by itself).
   */
  async kill(): Promise<void> {
    const postmaster = await this.postmasterPid();
    const backends = postmaster ? childrenOf(postmaster) : [];
    const child = this.child;
    this.child = null;
    child?.kill("SIGKILL");
    for (const pid of [postmaster, ...backends]) if (pid) safeKill(pid);
    if (child) await exited(child);
  }

  async role(): Promise<string> {
    try {
      const answer = await fetch(`${this.apiUrl}/patroni`, { signal: AbortSignal.timeout(2000) });
      return ((await answer.json()) as { role?: string }).role ?? "?";
    } catch {
      return "down";
    }
  }

  /** The log lines Patroni wrote that contain `text`. */
  async logLines(text: string): Promise<string[]> {
    const log = await readFile(this.log, "utf8").catch(() => "");
    return log.split("\n").filter((l) => l.includes(text));
  }
}

function safeKill(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Gone already.
  }
}

/** The direct children of `pid` (the postmaster's backends and auxiliary processes). */
function childrenOf(pid: number): number[] {
  const out = spawnSync("pgrep", ["-P", String(pid)], { encoding: "utf8" }).stdout;
  return out
    .split("\n")
    .map(Number)
    .filter((n) => n > 0);
}

/** etcd, two Patroni nodes and HAProxy, from deploy/ha/. */
export class HaCluster {
  readonly scope: string;
  readonly superuserPassword: string;
  readonly nodes: PatroniNode[] = [];
  private etcd: ChildProcess | null = null;
  private haproxy: ChildProcess | null = null;
  private etcdPort = 0;
  /** HAProxy's port for the primary (every DATABASE_URL) and for the consoles. */
  pgPort = 0;
  httpPort = 0;

  constructor(
    private readonly dir: string,
    scope: string,
    private readonly passwords: { superuser: string; replication: string },
    /**
     * deploy/ha's `synchronous_mode: true`, or false to measure what an asynchronous standby loses
     * (a measurement only: the shipped configuration is synchronous).
     */
    readonly synchronousMode = true,
  ) {
    this.scope = scope;
    this.superuserPassword = passwords.superuser;
  }

  /** The superuser's URL of `database` through HAProxy (always the primary). */
  url(database: string, user = "postgres", password = this.superuserPassword): string {
    return `postgresql://${user}:${encodeURIComponent(password)}@127.0.0.1:${this.pgPort}/${database}`;
  }

  get consolesUrl(): string {
    return `http://127.0.0.1:${this.httpPort}`;
  }

  /** etcd, then both nodes (one bootstraps, the other clones it), until a leader and a synchronous standby run. */
  async startDatabase(): Promise<void> {
    // The nodes' directories are the `postgres` user's: it must be able to reach them.
    await mkdir(this.dir, { recursive: true, mode: 0o755 });
    this.etcdPort = await freePort();
    const etcdDir = path.join(this.dir, "etcd");
    await mkdir(etcdDir, { recursive: true, mode: 0o700 });
    const etcdConfig = path.join(etcdDir, "etcd.yml");
    await writeFile(
      etcdConfig,
      await renderTemplate("etcd.yml", {
        NAME: "etcd1",
        HOST: "127.0.0.1",
        DATA_DIR: path.join(etcdDir, "data"),
        CLIENT_PORT: this.etcdPort,
        PEER_PORT: await freePort(),
        SCOPE: this.scope,
      }),
    );
    this.etcd = await spawnLogged("etcd", ["--config-file", etcdConfig], path.join(etcdDir, "etcd.log"));
    await until(`etcd on port ${this.etcdPort}`, 20_000, () => listening(this.etcdPort));
    for (const name of ["pg1", "pg2"])
      this.nodes.push(new PatroniNode(name, await freePort(), await freePort(), path.join(this.dir, name)));
    for (const node of this.nodes)
      await node.write(this.synchronousMode, {
        SCOPE: this.scope,
        ETCD_HOSTS: `127.0.0.1:${this.etcdPort}`,
        NETWORK: "127.0.0.1/32",
        REPLICATION_USER: "replicator",
        SUPERUSER_PASSWORD: this.passwords.superuser,
        REPLICATION_PASSWORD: this.passwords.replication,
      });
    await this.nodes[0]!.start();
    await this.waitFor("a bootstrapped leader", 90_000, (m) => m.some((x) => isLeader(x) && x.state === "running"));
    await this.nodes[1]!.start();
    await this.waitForSyncStandby(120_000);
  }

  /** HAProxy in front of the nodes and of the consoles on `consolePorts`. */
  async startHaproxy(consolePorts: [number, number]): Promise<void> {
    this.pgPort = await freePort();
    this.httpPort = await freePort();
    const config = path.join(this.dir, "haproxy.cfg");
    const [a, b] = this.nodes;
    await writeFile(
      config,
      await renderTemplate("haproxy.cfg", {
        LISTEN_HOST: "127.0.0.1",
        PG_PORT: this.pgPort,
        HTTP_PORT: this.httpPort,
        NODE1_NAME: a!.name,
        NODE1_HOST: "127.0.0.1",
        NODE1_PG_PORT: a!.pgPort,
        NODE1_API_PORT: a!.apiPort,
        NODE2_NAME: b!.name,
        NODE2_HOST: "127.0.0.1",
        NODE2_PG_PORT: b!.pgPort,
        NODE2_API_PORT: b!.apiPort,
        CONSOLE1_NAME: "console1",
        CONSOLE1_HOST: "127.0.0.1",
        CONSOLE1_PORT: consolePorts[0],
        CONSOLE2_NAME: "console2",
        CONSOLE2_HOST: "127.0.0.1",
        CONSOLE2_PORT: consolePorts[1],
      }),
    );
    const check = spawnSync("haproxy", ["-c", "-q", "-f", config], { encoding: "utf8" });
    if (check.status !== 0) throw new Error(`haproxy -c: ${check.stdout}${check.stderr}`);
    this.haproxy = await spawnLogged("haproxy", ["-db", "-f", config], path.join(this.dir, "haproxy.log"));
    await until(`HAProxy on port ${this.pgPort}`, 10_000, () => listening(this.pgPort));
    // HAProxy starts with every server up until its checks say otherwise (`fall` of them, about
    // two seconds): until then a connection may reach the standby. Ready when several in a row
    // reach the primary.
    await until("HAProxy routing only to the primary", 20_000, async () => {
      for (let i = 0; i < 4; i++) if (!(await this.reachesPrimary())) return false;
      return true;
    });
  }

  /** A connection through HAProxy's database port reaches a server that is not in recovery. */
  private async reachesPrimary(): Promise<boolean> {
    const client = new pg.Client({ connectionString: this.url("postgres") });
    client.on("error", () => {});
    try {
      await client.connect();
      return !(await client.query<{ standby: boolean }>("SELECT pg_is_in_recovery() AS standby")).rows[0]!.standby;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => {});
    }
  }

  async members(): Promise<Member[]> {
    for (const node of this.nodes) {
      try {
        const answer = await fetch(`${node.apiUrl}/cluster`, { signal: AbortSignal.timeout(2000) });
        return ((await answer.json()) as { members: Member[] }).members;
      } catch {
        // That node's Patroni is down: ask the other.
      }
    }
    return [];
  }

  /** Resolves with the members once `ready` holds of them; throws after `timeoutMs`. */
  async waitFor(what: string, timeoutMs: number, ready: (members: Member[]) => boolean): Promise<Member[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const members = await this.members();
      if (ready(members)) return members;
      if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs / 1000} s: ${JSON.stringify(members)}`);
      await sleep(250);
    }
  }

  /** A running leader and a standby that streams from it (the synchronous one, in synchronous mode). */
  waitForSyncStandby(timeoutMs: number): Promise<Member[]> {
    return this.waitFor("leader with a streaming standby", timeoutMs, (m) => this.replicated(m));
  }

  /** Whether `members` are a running leader and a running standby (synchronous, in synchronous mode). */
  replicated(members: Member[]): boolean {
    const standby = this.synchronousMode ? ["sync_standby"] : ["replica", "sync_standby"];
    return (
      members.some((x) => isLeader(x) && x.state === "running") &&
      members.some((x) => standby.includes(x.role) && (x.state === "streaming" || x.state === "running"))
    );
  }

  async leader(): Promise<PatroniNode> {
    const members = await this.members();
    const name = members.find(isLeader)?.name;
    const node = this.nodes.find((n) => n.name === name);
    if (!node) throw new Error(`no leader: ${JSON.stringify(members)}`);
    return node;
  }

  /** `patronictl switchover`: the planned change of primary, to `candidate`. */
  switchover(leader: PatroniNode, candidate: PatroniNode): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(
        "patronictl",
        ["-c", leader.config, "switchover", "--leader", leader.name, "--candidate", candidate.name, "--force"],
        { stdio: ["ignore", "pipe", "pipe"] },
      );
      let output = "";
      child.stdout!.on("data", (c: Buffer) => (output += c.toString()));
      child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
      child.once("exit", (code) =>
        code === 0 ? resolve() : reject(new Error(`patronictl switchover (exit ${code}): ${output}`)),
      );
    });
  }

  async stop(): Promise<void> {
    this.haproxy?.kill("SIGKILL");
    for (const node of this.nodes) await node.kill().catch(() => {});
    this.etcd?.kill("SIGKILL");
    if (this.haproxy) await exited(this.haproxy);
    if (this.etcd) await exited(this.etcd);
  }
}

/** Patroni 3 calls the primary `leader` in /cluster (`master` / `primary` elsewhere). */
export function isLeader(member: Member): boolean {
  return member.role === "leader" || member.role === "master" || member.role === "primary";
}
