import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, chown, cp, mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { withConnection } from "../lib/db/connection";
import { resolveTestServer } from "../testing/db/test-server";
import { freePort, waitForHealth } from "../lib/net/local-server";

// What the container image runs, run here: the Dockerfile's runtime stage read for its layout
// (WORKDIR, COPY), its environment (ENV), its user, its CMD and its HEALTHCHECK; the build output
// laid out that way in a folder of its own, away from the repository; that exact command started
// against a fresh database. No registry is needed, so CI proves the image's contents without
// `docker build` (docs/deploy.md).

const root = path.resolve(import.meta.dirname, "..");

interface Instruction {
  op: string;
  args: string;
}

interface Stage {
  name?: string;
  instructions: Instruction[];
}

/** The Dockerfile's stages: continuation lines joined, comments and parser directives dropped. */
function parseDockerfile(text: string): Stage[] {
  const logical: string[] = [];
  let pending = "";
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line.startsWith("#") || (line === "" && !pending)) continue;
    if (line.endsWith("\\")) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    logical.push(pending + line);
    pending = "";
  }
  const stages: Stage[] = [];
  for (const line of logical) {
    const match = /^(\w+)\s+(.*)$/s.exec(line);
    if (!match) throw new Error(`Dockerfile line not understood: ${line}`);
    const op = match[1]!.toUpperCase();
    const args = match[2]!.trim();
    if (op === "FROM") {
      const from = /^(?:--\S+\s+)*\S+(?:\s+AS\s+(\S+))?$/i.exec(args);
      stages.push({ name: from?.[1], instructions: [] });
    } else if (stages.length > 0) {
      stages.at(-1)!.instructions.push({ op, args });
    }
  }
  return stages;
}

/** `ENV a=1 b="two words"` (and the old `ENV a 1`) as pairs. */
function envPairs(args: string): Record<string, string> {
  if (!/^\S+=/.test(args)) {
    const [key, ...value] = args.split(/\s+/);
    return { [key!]: value.join(" ") };
  }
  const pairs: Record<string, string> = {};
  for (const m of args.matchAll(/(\w+)=("(?:[^"\\]|\\.)*"|\S*)/g)) {
    pairs[m[1]!] = m[2]!.startsWith('"') ? (JSON.parse(m[2]!) as string) : m[2]!;
  }
  return pairs;
}

function words(args: string): { flags: Record<string, string>; rest: string[] } {
  const flags: Record<string, string> = {};
  const rest: string[] = [];
  for (const word of args.split(/\s+/)) {
    const flag = /^--([\w-]+)(?:=(.*))?$/.exec(word);
    if (flag && rest.length === 0) flags[flag[1]!] = flag[2] ?? "";
    else rest.push(word);
  }
  return { flags, rest };
}

/** What the image is, read from its runtime stage (the last) and the stages it copies from. */
interface Image {
  /** Files of the image: its path inside, and where the repository (after the build) holds it. */
  copies: { from: string; to: string }[];
  workdir: string;
  env: Record<string, string>;
  /** Folders a RUN gives to another user (`chown`): the ones the console may write. */
  writable: string[];
  user: string | undefined;
  exposed: string[];
  cmd: string[];
  healthcheck: string[];
}

function readImage(stages: Stage[]): Image {
  const runtime = stages.at(-1)!;
  const image: Image = {
    copies: [],
    workdir: "/",
    env: {},
    writable: [],
    user: undefined,
    exposed: [],
    cmd: [],
    healthcheck: [],
  };
  for (const { op, args } of runtime.instructions) {
    if (op === "WORKDIR") image.workdir = path.posix.resolve(image.workdir, args);
    else if (op === "ENV") Object.assign(image.env, envPairs(args));
    else if (op === "USER") image.user = args;
    else if (op === "EXPOSE") image.exposed.push(...args.split(/\s+/));
    else if (op === "CMD") image.cmd = JSON.parse(args) as string[];
    else if (op === "HEALTHCHECK") image.healthcheck = JSON.parse(args.slice(args.indexOf("CMD") + 3)) as string[];
    else if (op === "RUN") {
      for (const m of args.matchAll(/chown\s+\S+\s+([^&;|]+)/g)) image.writable.push(...m[1]!.trim().split(/\s+/));
    } else if (op === "COPY") {
      const { flags, rest } = words(args);
      const to = path.posix.resolve(image.workdir, rest.pop()!);
      for (const source of rest) image.copies.push({ from: repositoryPath(stages, flags.from, source), to });
    }
  }
  return image;
}

/**
 * Where a COPY's source is in the repository: the build context itself, or a stage that copied
 * the whole context into its WORKDIR and ran `npm run build` there, as this repository does.
 */
function repositoryPath(stages: Stage[], fromStage: string | undefined, source: string): string {
  if (fromStage === undefined) return path.join(root, source);
  const stage = stages.find((s) => s.name === fromStage);
  if (!stage) throw new Error(`COPY --from=${fromStage}: no such stage`);
  const workdir = stage.instructions.filter((i) => i.op === "WORKDIR").at(-1)?.args ?? "/";
  const copiesContext = stage.instructions.some((i) => i.op === "COPY" && /^\.\s+\.\/?$/.test(i.args));
  const builds = stage.instructions.some((i) => i.op === "RUN" && i.args === "npm run build");
  if (!copiesContext || !builds) {
    throw new Error(`stage ${fromStage} must COPY . . and RUN npm run build for this test to stand in for it`);
  }
  const relative = path.posix.relative(workdir, path.posix.resolve(workdir, source));
  if (relative.startsWith("..")) throw new Error(`COPY --from=${fromStage} ${source}: outside its WORKDIR`);
  return path.join(root, relative);
}

function runCommand(command: string[], options: { cwd: string; env: NodeJS.ProcessEnv; uid?: number }) {
  return spawnSync(command[0]!, command.slice(1), { ...options, gid: options.uid, encoding: "utf8", timeout: 15_000 });
}

test("the Dockerfile's runtime stage, laid out from the build output, migrates and serves with its own CMD", async ({
  request,
}) => {
  test.setTimeout(240_000);
  const stages = parseDockerfile(await readFile(path.join(root, "Dockerfile"), "utf8"));
  const image = readImage(stages);
  // What docs/deploy.md promises about the image.
  expect(image.user, "the image runs as a user of its own").toBeTruthy();
  expect(["root", "0"]).not.toContain(image.user);
  expect(image.env.HOST, "listens on every interface inside the container").toBe("0.0.0.0");
  expect(image.exposed).toContain(image.env.PORT ?? "3000");
  expect(image.cmd.length, "an exec-form CMD").toBeGreaterThan(0);
  expect(image.healthcheck.length, "an exec-form HEALTHCHECK").toBeGreaterThan(0);
  for (const { from } of image.copies) {
    expect(existsSync(from), `${path.relative(root, from)} exists: run \`npm run build\` first`).toBe(true);
  }

  const pgServer = await resolveTestServer();
  const name = `rc_standalone_${randomBytes(4).toString("hex")}`;
  const databaseUrl = new URL(pgServer.serverUrl);
  databaseUrl.pathname = `/${name}`;
  await withConnection(pgServer.serverUrl, (c) => c.query(`CREATE DATABASE ${name}`));
  const imageRoot = await mkdtemp(path.join(os.tmpdir(), "rc-image-"));
  const inImage = (p: string) => path.join(imageRoot, p);
  // As root here, the console runs as nobody: like the image's USER, it can write only the
  // folders the Dockerfile hands over.
  const uid = process.getuid?.() === 0 ? 65534 : undefined;
  let child: ChildProcess | undefined;
  let output = "";
  try {
    await chmod(imageRoot, 0o755);
    for (const { from, to } of image.copies) {
      await cp(from, inImage(to), { recursive: true, verbatimSymlinks: true });
    }
    // The build machine's local state and secrets stay behind: its data folder (the session
    // key) and any .env (next.config.js's tracing excludes, scripts/build-standalone.ts).
    for (const local of [".data", ".env"]) {
      expect(existsSync(inImage(path.posix.join(image.workdir, local))), `${local} is not in the image`).toBe(false);
    }
    for (const folder of image.writable) {
      await mkdir(inImage(folder), { recursive: true });
      if (uid !== undefined) await chown(inImage(folder), uid, uid);
    }
    const bundle = image.cmd.find((arg) => arg.endsWith(".mjs") || arg.endsWith(".js"));
    if (bundle) {
      const text = await readFile(inImage(path.posix.resolve(image.workdir, bundle)), "utf8");
      expect(text.includes(root), "the bundle names no path of the build machine").toBe(false);
    }

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    // The image's environment and what `docker run -e` would add; nothing of this process's.
    // (NODE_ENV comes from the image's ENV, where the compiler cannot see it: hence the cast.)
    const environment: Record<string, string | undefined> = {
      PATH: process.env.PATH,
      ...image.env,
      DATABASE_URL: databaseUrl.toString(),
      HOST: "127.0.0.1",
      PORT: String(port),
      LOG_LEVEL: "warn",
    };
    const env = environment as NodeJS.ProcessEnv;
    const cwd = inImage(image.workdir);
    child = spawn(image.cmd[0]!, image.cmd.slice(1), { cwd, env, uid, gid: uid, detached: true });
    child.stdout?.on("data", (d) => (output += d));
    child.stderr?.on("data", (d) => (output += d));
    await waitForHealth(base, child, () => output, { timeoutMs: 90_000, label: image.cmd.join(" ") });

    const migrations = (await readdir(path.join(root, "prisma", "migrations"), { withFileTypes: true }))
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    const applied = await withConnection(databaseUrl.toString(), async (c) => {
      const { rows } = await c.query<{ name: string }>(`SELECT name FROM "_review_console_migrations" ORDER BY name`);
      return rows.map((r) => r.name);
    });
    expect(applied, "every migration applied at start").toEqual(migrations);

    const health = runCommand(image.healthcheck, { cwd, env, uid });
    expect(health.status, `HEALTHCHECK passes while serving: ${health.stderr}`).toBe(0);

    const login = await request.get(`${base}/login`);
    expect(login.status()).toBe(200);
    const html = await login.text();
    const assets = [...new Set([...html.matchAll(/(?:href|src)="(\/_next\/static\/[^"]+)"/g)].map((m) => m[1]!))];
    expect(assets.some((a) => a.endsWith(".css"), "the page links a stylesheet")).toBe(true);
    expect(assets.some((a) => a.endsWith(".js"), "the page loads a script")).toBe(true);
    for (const asset of assets) {
      const answer = await request.get(`${base}${asset}`);
      expect(answer.status(), asset).toBe(200);
      // next.config.js's headers() reaches the standalone output through the build's config.
      expect(answer.headers()["x-content-type-options"], asset).toBe("nosniff");
    }

    // A person made with the command line signs in: the password hashing (a native module) and the
    // session key (written by the console into its data folder) work in the image.
    const email = `standalone-${randomBytes(4).toString("hex")}@e2e.local`;
    const password = randomBytes(12).toString("base64url");
    const added = spawnSync(
      process.execPath,
      [path.join(root, "bin", "review-console.mjs"), "user", "add", "--email", email, "--role", "owner"],
      {
        cwd: root,
        env: { ...process.env, DATABASE_URL: databaseUrl.toString(), REVIEW_PASSWORD: password },
        encoding: "utf8",
      },
    );
    expect(added.status, added.stderr).toBe(0);
    const signIn = await request.post(`${base}/api/auth/sign-in/email`, {
      data: { email, password },
      headers: { origin: base },
    });
    expect(signIn.status(), await signIn.text()).toBe(200);
    const reviews = await request.get(`${base}/reviews`);
    expect(reviews.status(), "a signed-in page renders").toBe(200);
    expect(await reviews.text()).toContain(email);
    expect(existsSync(path.join(cwd, ".data", "auth-secret")), "the session key, made by the console's user").toBe(
      true,
    );

    // A program reports a record: bearer intake is answered by the bundled fast path in start.mjs
    // (docs/decisions/0025-intake-fast-path.md), with the Prisma client and token lookup it bundles.
    const issued = spawnSync(
      process.execPath,
      [
        path.join(root, "bin", "review-console.mjs"),
        "token",
        "add",
        "--name",
        "standalone-worker",
        "--role",
        "consumer",
      ],
      { cwd: root, env: { ...process.env, DATABASE_URL: databaseUrl.toString() }, encoding: "utf8" },
    );
    expect(issued.status, issued.stderr).toBe(0);
    const token = issued.stdout.trim().split("\n").at(-1)!;
    const reported = await request.post(`${base}/api/v1/reviews`, {
      headers: { authorization: `Bearer ${token}` },
      data: {
        category: "manual-review",
        reason: "invalid-payload",
        requiredCheck: "look",
        attempts: 1,
        message: { id: `standalone-${randomBytes(4).toString("hex")}`, kind: "k", payload: {} },
      },
    });
    expect(reported.status(), await reported.text()).toBe(201);
    expect(reported.headers()["content-security-policy"]).toContain("default-src 'none'");
    const metrics = await request.get(`${base}/api/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(await metrics.text()).toMatch(
      /review_console_http_fast_path_requests_total\{route="\/api\/v1\/reviews"\} 1/,
    );

    // `docker stop`: SIGTERM to the command alone, which must end by itself and cleanly.
    const exited = new Promise<number | null>((resolve) => child!.once("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    expect(await exited, `exit code after SIGTERM:\n${output}`).toBe(0);
    const down = runCommand(image.healthcheck, { cwd, env, uid });
    expect(down.status, "HEALTHCHECK fails when nothing answers").not.toBe(0);
  } finally {
    if (child?.pid && child.exitCode === null && child.signalCode === null) process.kill(-child.pid, "SIGKILL");
    await withConnection(pgServer.serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    await pgServer.stop();
    await rm(imageRoot, { recursive: true, force: true });
  }
});
