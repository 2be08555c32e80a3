import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { connect as connectTcp } from "node:net";
import path from "node:path";
import { sleep } from "@review-console/consumer";
import { natsReachable } from "@review-console/consumer/nats";
import { rabbitmqReachable } from "@review-console/consumer/rabbitmq";
import { connectRedis } from "@/testing/worker/harness";
import { freePort } from "@/lib/net/local-server";
import { killOnExit } from "./fleet";

// The brokers `npm run test:restarts` owns and restarts: each on free ports of its own, with its
// data in the test's scratch directory, so stopping one never touches the machine's shared
// servers (Redis on 6379, the rabbit@localhost node on 5672 with its epmd, NATS on 4222).

/** Whether `command` is on the PATH. */
export function onPath(command: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" }).status === 0;
}

/** Waits for `child` to exit (at once when it has). */
export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

export async function until(what: string, timeoutMs: number, ready: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`${what} did not come up within ${timeoutMs / 1000} s`);
    await sleep(100);
  }
}

/** Something accepts TCP connections on 127.0.0.1:`port`. */
export function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connectTcp({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** A redis-server restartable on the same port and files (append-only, fsynced on every write). */
export class OwnRedis {
  readonly title = "Redis";
  private child: ChildProcess | null = null;
  constructor(
    readonly port: number,
    private readonly dir: string,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    this.child = spawn(
      "redis-server",
      [
        ...["--port", String(this.port), "--bind", "127.0.0.1", "--dir", this.dir, "--save", ""],
        ...["--appendonly", "yes", "--appendfsync", "always"],
      ],
      { stdio: "ignore" },
    );
    killOnExit(this.child);
    await until(`redis-server on port ${this.port}`, 10_000, async () => {
      try {
        const client = await connectRedis(this.url);
        await client.ping();
        client.destroy();
        return true;
      } catch {
        return false;
      }
    });
  }

  /** SIGKILL: a crash. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child) return;
    child.kill("SIGKILL");
    await exited(child);
  }
}

/**
 * A nats-server with JetStream, its store (`-sd`) in `dir`: what was stored survives a restart
 * on the same port and store, as a production server's does.
 */
export class OwnNats {
  readonly title = "NATS with JetStream";
  private child: ChildProcess | null = null;
  private constructor(
    readonly port: number,
    private readonly dir: string,
  ) {}

  static async create(dir: string): Promise<OwnNats> {
    return new OwnNats(await freePort(), dir);
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    this.child = spawn("nats-server", ["-js", "-a", "127.0.0.1", "-p", String(this.port), "-sd", this.dir], {
      stdio: "ignore",
    });
    killOnExit(this.child);
    await until(`nats-server on port ${this.port}`, 15_000, () => natsReachable(this.url));
  }

  /** SIGKILL: a crash; JetStream recovers its streams and consumers from the store on the next start. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child) return;
    child.kill("SIGKILL");
    await exited(child);
  }

  close(): Promise<void> {
    return this.stop();
  }
}

/**
 * A RabbitMQ node of its own: its own node name, AMQP and distribution ports, an epmd of its own
 * on a free port (the shared node's epmd on 4369 is never asked), and its database, logs, config
 * and plugin list in `dir`, listening on loopback only. Debian's `rabbitmq-server` runs the node as
 * the `rabbitmq` user when started as root, so `dir` is handed to that user.
 */
export class OwnRabbitMq {
  readonly title = "RabbitMQ";
  private server: ChildProcess | null = null;
  private epmd: ChildProcess | null = null;
  private constructor(
    readonly node: string,
    readonly port: number,
    private readonly distPort: number,
    private readonly epmdPort: number,
    private readonly dir: string,
  ) {}

  static async create(dir: string): Promise<OwnRabbitMq> {
    const node = `rc-restart-${process.pid}@localhost`;
    return new OwnRabbitMq(node, await freePort(), await freePort(), await freePort(), dir);
  }

  get url(): string {
    return `amqp://guest:guest@127.0.0.1:${this.port}`;
  }

  private get pidFile(): string {
    return path.join(this.dir, "rabbit.pid");
  }

  /** Every setting the node and rabbitmqctl read, set here: nothing comes from /etc/rabbitmq. */
  private env(): NodeJS.ProcessEnv {
    return {
      ...process.env,
      RABBITMQ_NODENAME: this.node,
      RABBITMQ_NODE_IP_ADDRESS: "127.0.0.1",
      RABBITMQ_NODE_PORT: String(this.port),
      RABBITMQ_DIST_PORT: String(this.distPort),
      ERL_EPMD_PORT: String(this.epmdPort),
      ERL_EPMD_ADDRESS: "127.0.0.1",
      ERL_FLAGS: "-kernel inet_dist_use_interface {127,0,0,1}",
      ERL_CRASH_DUMP: path.join(this.dir, "erl_crash.dump"),
      RABBITMQ_MNESIA_BASE: path.join(this.dir, "mnesia"),
      RABBITMQ_LOG_BASE: path.join(this.dir, "log"),
      RABBITMQ_CONFIG_FILE: path.join(this.dir, "rabbitmq.conf"),
      RABBITMQ_ADVANCED_CONFIG_FILE: path.join(this.dir, "advanced.config"),
      RABBITMQ_CONF_ENV_FILE: path.join(this.dir, "rabbitmq-env.conf"),
      RABBITMQ_ENABLED_PLUGINS_FILE: path.join(this.dir, "enabled_plugins"),
      RABBITMQ_PID_FILE: this.pidFile,
    };
  }

  async start(): Promise<void> {
    if (this.node.startsWith("rabbit@")) throw new Error("refusing to run as the shared rabbit@ node");
    if (!this.epmd) {
      await mkdir(this.dir, { recursive: true });
      // No plugins (the management plugin would take the shared node's port 15672), loopback only.
      await writeFile(path.join(this.dir, "rabbitmq.conf"), `listeners.tcp.1 = 127.0.0.1:${this.port}\n`);
      await writeFile(path.join(this.dir, "advanced.config"), "[].\n");
      await writeFile(path.join(this.dir, "rabbitmq-env.conf"), "");
      await writeFile(path.join(this.dir, "enabled_plugins"), "[].\n");
      handTo("rabbitmq", this.dir);
      this.epmd = spawn("epmd", ["-port", String(this.epmdPort), "-address", "127.0.0.1"], { stdio: "ignore" });
      killOnExit(this.epmd);
      await until(`epmd on port ${this.epmdPort}`, 10_000, () => listening(this.epmdPort));
    }
    // The node (another user) writes it afresh; one left by root would stop it from starting.
    await rm(this.pidFile, { force: true });
    this.server = spawn("rabbitmq-server", [], { env: this.env(), stdio: "ignore" });
    killOnExit(this.server);
    const server = this.server;
    // `rabbitmqctl wait` returns once the node's applications run (or fails when its process ends).
    await until(`RabbitMQ node ${this.node}`, 120_000, async () => {
      if (server.exitCode !== null) throw new Error(`RabbitMQ node ${this.node} exited; see ${this.dir}/log`);
      return (await readFile(this.pidFile, "utf8").catch(() => "")).trim() !== "";
    });
    // The node runs as another user under su, out of reach of killOnExit: its own pid is not.
    const pid = Number((await readFile(this.pidFile, "utf8")).trim());
    process.once("exit", () => {
      if (this.server === server) killQuietly(pid);
    });
    const waited = await this.ctl(["wait", this.pidFile, "--timeout", "120"]);
    if (waited.status !== 0) throw new Error(`RabbitMQ node ${this.node} did not start: ${waited.output}`);
    await until(`RabbitMQ on port ${this.port}`, 30_000, () => rabbitmqReachable(this.url));
  }

  /** A clean stop, as for an upgrade: the node closes every connection, then ends. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    const stopped = await this.ctl(["stop"]);
    if (stopped.status !== 0) await this.kill();
    await exited(server);
  }

  /** Ends the node (by the OS pid it wrote) and its epmd: for the end of the test, whatever state it is in. */
  async close(): Promise<void> {
    if (this.server) {
      const server = this.server;
      this.server = null;
      await this.ctl(["stop"]).catch(() => {});
      await this.kill();
      await Promise.race([exited(server), sleep(5000)]);
    }
    if (this.epmd) {
      this.epmd.kill("SIGKILL");
      await exited(this.epmd);
      this.epmd = null;
    }
  }

  private async kill(): Promise<void> {
    killQuietly(Number((await readFile(this.pidFile, "utf8").catch(() => "")).trim()));
  }

  /** rabbitmqctl against this node only. */
  private ctl(args: string[]): Promise<{ status: number | null; output: string }> {
    return new Promise((resolve) => {
      const child = spawn("rabbitmqctl", ["-n", this.node, ...args], { env: this.env() });
      let output = "";
      child.stdout.on("data", (c: Buffer) => (output += c.toString("utf8")));
      child.stderr.on("data", (c: Buffer) => (output += c.toString("utf8")));
      child.once("exit", (status) => resolve({ status, output: output.trim().slice(-2000) }));
    });
  }
}

/** Hands `dir` and what is in it to `user`, when running as root and the user exists. */
function handTo(user: string, dir: string): void {
  if (process.getuid?.() !== 0) return;
  if (spawnSync("id", ["-u", user], { stdio: "ignore" }).status !== 0) return;
  const chowned = spawnSync("chown", ["-R", `${user}:`, dir], { encoding: "utf8" });
  if (chowned.status !== 0) throw new Error(`chown ${user} ${dir}: ${chowned.stderr}`);
}

function killQuietly(pid: number): void {
  if (!Number.isSafeInteger(pid) || pid <= 0) return;
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // gone already
  }
}
