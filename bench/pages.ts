import "dotenv/config";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { type APIRequestContext, type Browser, type BrowserContext, chromium, type Page } from "@playwright/test";
import pg from "pg";
import { ms, seedWithProgress, summarize, table, withBenchDatabase } from "@/bench/support";
import { createUser } from "@/lib/users";
import { chromiumLaunch } from "../playwright.config";
import { freePort } from "@/lib/net/local-server";

/*
 * `npm run bench:pages`: how long each main page of the console takes from navigation to its main
 * content visible, in Chromium against `next start` (a production build), as a person sees it.
 *
 * Seeds BENCH_RECORDS (1,000,000) synthetic records into a fresh database (DATABASE_URL's server,
 * else the embedded PostgreSQL, see bench/support.ts), adds one bulk operation (a draft over a few
 * records, by an owner) so its pages have something to show, signs in as an admin, then opens each page once
 * to warm up and BENCH_NAVIGATIONS (20) times measured. The figure of a navigation is the time from
 * its start (the document's time origin) to the first frame painted after the page's main content
 * was visible (a selector per page, below) with nothing in <main> marked `aria-busy`; the page
 * records it itself (a MutationObserver from an init script), so Playwright's polling is not in it.
 * Prints a line per page and ends with `page p95 ms: N`, the worst page's p95. Target: N < 500.
 * Not a timed test: a figure to read, with the machine's load printed beside it.
 */

const RECORDS = Number(process.env.BENCH_RECORDS ?? 1_000_000);
const NAVIGATIONS = Number(process.env.BENCH_NAVIGATIONS ?? 20);
const TARGET_MS = 500;

const root = path.resolve(import.meta.dirname, "..");
const nextBin = path.join(root, "node_modules", "next", "dist", "bin", "next");

/** A page and what shows that its main content is there. `{record}`/`{operation}`: ids found at start. */
const PAGES: { name: string; path: string; ready: string }[] = [
  { name: "overview", path: "/overview", ready: "main canvas" },
  { name: "queue", path: "/reviews", ready: 'main table tbody tr a[href^="/reviews/"]' },
  {
    name: "queue, filtered",
    path: "/reviews?reason=retry-limit&category=manual-review",
    ready: 'main table tbody tr a[href^="/reviews/"]',
  },
  { name: "record", path: "/reviews/{record}", ready: "main h1" },
  { name: "operations", path: "/operations", ready: 'main a[href^="/operations/"]' },
  { name: "operation", path: "/operations/{operation}", ready: "main h1" },
  { name: "approvals", path: "/approvals", ready: "main h1" },
  { name: "audit", path: "/audit", ready: 'main table tbody tr a[href^="/reviews/"]' },
  { name: "admin", path: "/admin", ready: "main table tbody tr" },
];

/**
 * Runs in every document before its own scripts: notes when the selector in `window.name`'s
 * place (set per navigation, below) is visible and <main> is not busy. A string, not a function:
 * tsx (esbuild keepNames) would wrap a function's inner functions in a `__name` helper that does
 * not exist in the page.
 */
const WATCH_READY = `(() => {
  const selector = sessionStorage.getItem("bench:ready");
  if (!selector) return;
  const found = () => {
    const element = document.querySelector(selector);
    // Streamed HTML arrives in a hidden container first; it counts once it is shown.
    if (!element || !element.checkVisibility()) return false;
    if (document.querySelector('main [aria-busy="true"]')) return false;
    const entry = { ready: performance.now(), painted: null };
    window.__ready = entry;
    // The frame that shows it: after the next animation frame has been rendered.
    requestAnimationFrame(() => setTimeout(() => { entry.painted = performance.now(); }, 0));
    return true;
  };
  const observer = new MutationObserver(() => {
    if (found()) observer.disconnect();
  });
  observer.observe(document, { childList: true, subtree: true, attributes: true });
})();`;

function ensureBuild(): void {
  if (existsSync(path.join(root, ".next", "BUILD_ID")) && !process.env.BENCH_BUILD) return;
  console.log("no production build yet: running next build ...");
  const result = spawnSync(process.execPath, [nextBin, "build"], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) throw new Error(`next build failed (${result.status})`);
}

async function startServer(databaseUrl: string): Promise<{ baseURL: string; child: ChildProcess }> {
  const port = await freePort();
  const baseURL = `http://127.0.0.1:${port}`;
  let output = "";
  const child = spawn(process.execPath, [nextBin, "start", "-H", "127.0.0.1", "-p", String(port)], {
    cwd: root,
    // Its own process group, so stopping it stops next-server too.
    detached: true,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      BETTER_AUTH_SECRET: randomBytes(32).toString("base64url"),
      NEXT_TELEMETRY_DISABLED: "1",
      LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
    },
  });
  child.stdout?.on("data", (d) => (output += d));
  child.stderr?.on("data", (d) => (output += d));
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`next start exited with ${child.exitCode}:\n${output}`);
    const ok = await fetch(`${baseURL}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { baseURL, child };
    await new Promise((r) => setTimeout(r, 200));
  }
  stopServer(child);
  throw new Error(`next start gave no health answer within 60 s:\n${output}`);
}

function stopServer(child: ChildProcess): void {
  if (!child.pid || child.exitCode !== null) return;
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {
    // already gone
  }
}

/** Navigation start to the main content painted, in ms, measured in the page. */
async function navigate(page: Page, url: string, ready: string): Promise<number> {
  await page.evaluate((selector) => sessionStorage.setItem("bench:ready", selector), ready);
  await page.goto(url, { waitUntil: "commit" });
  const inPage = await page.waitForFunction(
    () => {
      const w = window as unknown as { __ready?: { ready: number; painted: number | null } };
      return w.__ready && w.__ready.painted !== null ? w.__ready.painted : null;
    },
    undefined,
    { timeout: 60_000 },
  );
  return (await inPage.jsonValue())!;
}

/** A person of `role`, signed in on a new context of `browser`. */
async function signedIn(browser: Browser, baseURL: string, role: "owner" | "admin"): Promise<BrowserContext> {
  const email = `bench-${role}-${randomBytes(4).toString("hex")}@bench.local`;
  const password = randomBytes(18).toString("base64url");
  const created = await createUser({ email, role, password }, "system:bench-pages");
  if (!created.ok) throw new Error(`could not create ${email}: ${created.reason}`);
  const context = await browser.newContext({ baseURL, viewport: { width: 1280, height: 720 } });
  const signIn = await context.request.post("/api/auth/sign-in/email", {
    data: { email, password },
    headers: { origin: baseURL },
  });
  if (!signIn.ok()) throw new Error(`signing in failed: ${signIn.status()} ${await signIn.text()}`);
  return context;
}

/** A record id and an operation over a few records (a draft an owner made: created, never confirmed). */
async function fixtures(url: string, request: APIRequestContext, baseURL: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string }>(
      `SELECT id::text FROM review_records WHERE status = 'open' ORDER BY seq DESC LIMIT 5`,
    );
    const created = await request.post("/api/v1/operations", {
      headers: { origin: baseURL },
      data: { action: "note", reason: "bench:pages", selection: { type: "ids", ids: rows.map((r) => r.id) } },
    });
    if (!created.ok()) throw new Error(`creating an operation failed: ${created.status()} ${await created.text()}`);
    const operation = (await created.json()) as { id: string };
    return { record: rows[0]!.id, operation: operation.id };
  } finally {
    await client.end();
  }
}

async function main() {
  ensureBuild();
  await withBenchDatabase("rc_bench_pages", async (url) => {
    const seeded = await seedWithProgress(url, RECORDS);
    console.log(`seeded ${seeded.inserted.toLocaleString("en")} records in ${(seeded.ms / 1000).toFixed(1)} s`);

    const { baseURL, child } = await startServer(url);
    // An interrupted run must not leave next start behind (it is in a process group of its own).
    const stopOnExit = () => stopServer(child);
    process.once("exit", stopOnExit);
    const browser = await chromium.launch(chromiumLaunch);
    try {
      const owner = await signedIn(browser, baseURL, "owner");
      const ids = await fixtures(url, owner.request, baseURL);
      await owner.close();
      // An admin reads every page the list names, the admin area included.
      const context = await signedIn(browser, baseURL, "admin");
      await context.addInitScript(WATCH_READY);
      const page = await context.newPage();
      await page.goto("/api/health"); // an origin for sessionStorage before the first navigation

      const [load1] = os.loadavg();
      console.log(`load average before: ${load1!.toFixed(2)} on ${os.cpus().length} cores`);
      const rows: string[][] = [];
      let worst = 0;
      for (const target of PAGES) {
        const url = target.path.replace("{record}", ids.record).replace("{operation}", ids.operation);
        await navigate(page, url, target.ready); // warm-up
        const samples: number[] = [];
        for (let i = 0; i < NAVIGATIONS; i++) samples.push(await navigate(page, url, target.ready));
        const s = summarize(samples);
        worst = Math.max(worst, s.p95);
        rows.push([target.name, url.length > 48 ? `${url.slice(0, 47)}…` : url, ms(s.p50), ms(s.p95), ms(s.max)]);
        console.log(`  ${target.name}: p50 ${ms(s.p50)} ms, p95 ${ms(s.p95)} ms`);
      }
      console.log(
        `\n${RECORDS.toLocaleString("en")} records, ${NAVIGATIONS} navigations per page after a warm-up, Chromium, ` +
          `ms from navigation start to the main content painted\n`,
      );
      console.log(table(["page", "path", "p50", "p95", "max"], rows));
      console.log(`load average after: ${os.loadavg()[0]!.toFixed(2)}`);
      console.log(`\npage p95 ms: ${ms(worst)}${worst < TARGET_MS ? "" : ` (target < ${TARGET_MS}: not met)`}`);
    } finally {
      await browser.close();
      stopServer(child);
      process.off("exit", stopOnExit);
    }
  });
}

await main();
