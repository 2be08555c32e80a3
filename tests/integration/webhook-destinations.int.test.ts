/**
 * Webhook destinations inside the machine or its network: refused when an endpoint is added
 * (400 naming `url`), in any spelling of the address and whatever a name resolves to, and again
 * at each delivery, after resolving the name that moment (a name can change its answer). Name
 * resolution is answered by this file for names under `.example.test` (a stand-in for a hostile
 * DNS server); the receiver listens on 127.0.0.1, which only WEBHOOK_ALLOWED_NETWORKS allows.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { CLI_ACTOR } from "@/lib/access";
import { addWebhook, DEFAULT_NOTIFIER_OPTIONS, runNotifier } from "@/lib/notifications";
import { POST as addRoute } from "@/app/api/v1/webhooks/route";
import { setupTestDatabase, withClient } from "../support/database";
import { call, tokenFor } from "../support/http";
import { envelope, reportGaps } from "../support/operations";

/** What the stand-in resolver answers for a name under .example.test. */
const dnsAnswers = vi.hoisted(() => new Map<string, string[]>());

vi.mock("node:dns", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:dns")>();
  const lookup = ((host: string, options: unknown, callback: (...args: unknown[]) => void) => {
    const answer = dnsAnswers.get(host);
    if (!answer) return real.lookup(host, options as never, callback as never);
    const all = answer.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
    if ((options as { all?: boolean }).all) return process.nextTick(() => callback(null, all));
    process.nextTick(() => callback(null, all[0]!.address, all[0]!.family));
  }) as typeof real.lookup;
  return { ...real, default: { ...real, lookup }, lookup };
});
vi.mock("node:dns/promises", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:dns/promises")>();
  const lookup = (async (host: string, options: unknown) => {
    const answer = dnsAnswers.get(host);
    if (!answer) return real.lookup(host, options as never);
    return answer.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  }) as typeof real.lookup;
  return { ...real, default: { ...real, lookup }, lookup };
});

const database = setupTestDatabase();
const sql = (text: string, params: unknown[] = []) => withClient(database.current.url, (c) => c.query(text, params));
const tag = () => `t${Math.random().toString(36).slice(2, 9)}`;

let server: Server;
let port: number;
const received: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    received.push(req.url ?? "/");
    req.resume();
    res.writeHead(200, { "content-type": "text/plain" }).end("internal secret");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterEach(() => {
  vi.unstubAllEnvs();
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Runs one notifier until the endpoint's delivery has an attempt, then stops it; the attempt. */
async function firstAttempt(endpointId: string) {
  const controller = new AbortController();
  const loop = runNotifier({
    ...DEFAULT_NOTIFIER_OPTIONS,
    tickMs: 25,
    thresholdEveryMs: 3_600_000,
    timeoutMs: 1_500,
    baseDelayMs: 60_000,
    signal: controller.signal,
  });
  try {
    const end = Date.now() + 15_000;
    for (;;) {
      const { rows } = await sql(
        `SELECT a.status, a.error FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
          WHERE d.endpoint_id = $1`,
        [endpointId],
      );
      if (rows[0]) return rows[0] as { status: number | null; error: string | null };
      if (Date.now() > end) throw new Error("timed out waiting for an attempt");
      await new Promise((r) => setTimeout(r, 25));
    }
  } finally {
    controller.abort();
    await loop;
  }
}

describe("adding a webhook", () => {
  it("refuses an internal destination in any spelling, or a name resolving to one, with 400 naming url", async () => {
    const t = tag();
    const admin = await tokenFor("admin");
    dnsAnswers.set(`loop-${t}.example.test`, ["127.0.0.1"]);
    dnsAnswers.set(`mixed-${t}.example.test`, ["93.184.216.34", "10.0.0.7"]);
    dnsAnswers.set(`meta-${t}.example.test`, ["169.254.169.254"]);
    dnsAnswers.set(`v6-${t}.example.test`, ["fd00::1"]);
    const before = (await sql(`SELECT count(*)::int AS n FROM webhook_endpoints`)).rows[0].n;
    for (const url of [
      `http://localhost:${port}/x`,
      `http://127.0.0.1:${port}/x`,
      `http://[::1]:${port}/x`,
      `http://0.0.0.0:${port}/x`,
      `http://2130706433:${port}/x`,
      `http://0x7f000001:${port}/x`,
      `http://0177.0.0.1:${port}/x`,
      `http://[::ffff:127.0.0.1]:${port}/x`,
      "http://169.254.169.254/latest/meta-data/",
      "http://metadata.google.internal/computeMetadata/v1/",
      "http://10.0.0.1/x",
      "http://172.16.5.4/x",
      "http://192.168.0.10/x",
      "http://[fe80::1]/x",
      "http://[fd12:3456::1]/x",
      `http://loop-${t}.example.test:${port}/x`,
      `http://mixed-${t}.example.test/x`,
      `http://meta-${t}.example.test/x`,
      `http://v6-${t}.example.test/x`,
    ]) {
      const answer = await call(addRoute, { token: admin, body: { url, reason: "test" } });
      expect(answer.status, url).toBe(400);
      expect(answer.body.error.issues, url).toEqual([
        { path: "url", message: expect.stringMatching(/^must be a public address: /) },
      ]);
    }
    expect((await sql(`SELECT count(*)::int AS n FROM webhook_endpoints`)).rows[0].n).toBe(before);

    // A public name is accepted; so is an allowed range, for an on-premise receiver.
    dnsAnswers.set(`public-${t}.example.test`, ["93.184.216.34"]);
    const public_ = await call(addRoute, {
      token: admin,
      body: { url: `https://public-${t}.example.test/h`, reason: "x" },
    });
    expect(public_.status).toBe(201);
    vi.stubEnv("WEBHOOK_ALLOWED_NETWORKS", "10.0.0.0/8");
    expect(
      (await call(addRoute, { token: admin, body: { url: "http://10.0.0.1/x", reason: "on premise" } })).status,
    ).toBe(201);
    expect((await call(addRoute, { token: admin, body: { url: "http://192.168.0.1/x", reason: "x" } })).status).toBe(
      400,
    );
  });
});

describe("each delivery", () => {
  it("checks the address the name resolves to at that moment, and connects to none that is internal", async () => {
    const t = tag();
    const name = `rebind-${t}.example.test`;
    dnsAnswers.set(name, ["93.184.216.34"]);
    const { webhook } = await addWebhook(
      { url: `http://${name}:${port}/rebind-${t}`, events: ["cause.new"], reason: "test" },
      CLI_ACTOR,
    );
    // The name now answers with this machine's address, beside a public one.
    dnsAnswers.set(name, ["93.184.216.34", "127.0.0.1"]);
    await reportGaps([envelope(`rebind${t}.k`, `k-${t}`, 2)], `Cause${t}`);
    const attempt = await firstAttempt(webhook.id);
    expect(attempt.status).toBeNull();
    expect(attempt.error).toMatch(new RegExp(`^${name} resolves to 127\\.0\\.0\\.1 is a loopback`));
    expect(received.filter((path) => path === `/rebind-${t}`)).toEqual([]);

    // Once the range is allowed (a receiver on premises), the name's checked address is connected to.
    vi.stubEnv("WEBHOOK_ALLOWED_NETWORKS", "127.0.0.0/8");
    dnsAnswers.set(name, ["127.0.0.1"]);
    await sql(`DELETE FROM webhook_attempts`);
    await sql(`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE endpoint_id = $1`, [webhook.id]);
    expect(await firstAttempt(webhook.id)).toEqual({ status: 200, error: null });
    expect(received.filter((path) => path === `/rebind-${t}`)).toHaveLength(1);
  });

  it("refuses an internal address written in a stored URL (added while allowed), and sends to it when allowed", async () => {
    const t = tag();
    vi.stubEnv("WEBHOOK_ALLOWED_NETWORKS", "127.0.0.0/8");
    const { webhook } = await addWebhook(
      { url: `http://[::ffff:127.0.0.1]:${port}/was-allowed-${t}`, events: ["cause.new"], reason: "test" },
      CLI_ACTOR,
    );
    vi.unstubAllEnvs();
    await reportGaps([envelope(`was${t}.k`, `k-${t}`, 2)], `Cause${t}`);
    const refused = await firstAttempt(webhook.id);
    expect(refused).toEqual({ status: null, error: expect.stringMatching(/^::ffff:7f00:1 is a loopback/) });
    expect(received.filter((path) => path === `/was-allowed-${t}`)).toEqual([]);

    // Allowed again: delivered, and nothing of the answer is kept but its status.
    vi.stubEnv("WEBHOOK_ALLOWED_NETWORKS", "127.0.0.0/8");
    await sql(`DELETE FROM webhook_attempts`);
    await sql(`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE endpoint_id = $1`, [webhook.id]);
    expect(await firstAttempt(webhook.id)).toEqual({ status: 200, error: null });
    expect(received.filter((path) => path === `/was-allowed-${t}`)).toHaveLength(1);
  });
});
