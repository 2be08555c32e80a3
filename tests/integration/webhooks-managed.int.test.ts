/**
 * Webhooks managed in the console (docs/decisions/0048-webhooks-in-the-console.md), through the
 * API's real handlers against an HTTP receiver this file starts on 127.0.0.1: an endpoint is
 * changed (its secret and history kept), disabled (nothing queued, nothing sent, its pending
 * deliveries wait) and enabled (they go); a test event reaches it signed; a failed delivery is
 * sent again under its own webhook-id and is delivered. Each change is in the decision log.
 */
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { processLogBatch } from "@/lib/notifications";
import { GET as deliveriesRoute } from "@/app/api/v1/webhooks/[webhookId]/deliveries/route";
import { POST as redeliverRoute } from "@/app/api/v1/webhooks/[webhookId]/deliveries/[deliveryId]/redeliver/route";
import { POST as disableRoute } from "@/app/api/v1/webhooks/[webhookId]/disable/route";
import { POST as enableRoute } from "@/app/api/v1/webhooks/[webhookId]/enable/route";
import { PUT as changeRoute } from "@/app/api/v1/webhooks/[webhookId]/route";
import { POST as testRoute } from "@/app/api/v1/webhooks/[webhookId]/test/route";
import { POST as addRoute } from "@/app/api/v1/webhooks/route";
import { setupTestDatabase, withClient } from "../support/database";
import { call, tokenFor } from "../support/http";
import { envelope, reportGaps } from "../support/operations";
import { until, webhookReceiver, withNotifiers } from "../support/webhook-receiver";

const database = setupTestDatabase();
const sql = (text: string, params: unknown[] = []) => withClient(database.current.url, (c) => c.query(text, params));

const receiver = webhookReceiver();
const to = receiver.to;
const tag = () => `t${Math.random().toString(36).slice(2, 9)}`;

/** Runs a notifier loop (quick retries, two attempts) until `fn` is done. */
const withNotifier = <T>(fn: () => Promise<T>) =>
  withNotifiers(1, { timeoutMs: 2_000, baseDelayMs: 100, maxDelayMs: 200, maxAttempts: 2 }, fn);

async function addEndpoint(admin: string, path: string, extra: Record<string, unknown> = {}) {
  const added = await call(addRoute, {
    token: admin,
    body: { url: `${receiver.base}${path}`, events: ["cause.new"], reason: "on call", ...extra },
  });
  expect(added.status).toBe(201);
  return { id: added.body.webhook.id as string, secret: added.body.secret as string };
}

const stateOf = async (admin: string, webhookId: string) =>
  (await call(deliveriesRoute, { token: admin, params: { webhookId } })).body.deliveries as {
    id: string;
    eventType: string;
    state: string;
    attempts: number;
  }[];

const logOf = async (webhookId: string) =>
  (
    await sql(
      `SELECT action, reason, details FROM decision_log WHERE action LIKE 'webhook.%' AND details->>'webhookId' = $1 ORDER BY seq`,
      [webhookId],
    )
  ).rows as { action: string; reason: string; details: Record<string, unknown> }[];

describe("an admin managing an endpoint", () => {
  it("changes it: the whole definition again, its secret kept, bad input refused naming the field", async () => {
    const t = tag();
    const admin = await tokenFor("admin");
    const { id, secret } = await addEndpoint(admin, `/before-${t}`);
    const changed = await call(changeRoute, {
      token: admin,
      params: { webhookId: id },
      body: {
        url: `${receiver.base}/after-${t}/credential-${t}`,
        events: ["operation.finished"],
        openAbove: 10,
        reason: "moved",
      },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.webhook).toMatchObject({
      url: `${receiver.base}/after-${t}/credential-${t}`,
      events: ["operation.finished"],
      openAbove: 10,
      disabledAt: null,
    });
    for (const [body, field] of [
      [{ url: "ftp://example.test/", reason: "x" }, "url"],
      [{ url: `${receiver.base}/x`, events: [], reason: "x" }, "events"],
      [{ url: `${receiver.base}/x`, domain: `nosuch-${t}`, reason: "x" }, "domain"],
      [{ url: `${receiver.base}/x` }, "reason"],
    ] as const) {
      const answer = await call(changeRoute, { token: admin, params: { webhookId: id }, body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.issues.map((i: { path: string }) => i.path)).toContain(field);
    }
    const unknown = "00000000-0000-4000-8000-000000000000";
    const missing = await call(changeRoute, {
      token: admin,
      params: { webhookId: unknown },
      body: { url: `${receiver.base}/x`, reason: "x" },
    });
    expect(missing.status).toBe(404);

    // The test event is signed with the secret given when the endpoint was added.
    await withNotifier(async () => {
      expect((await call(testRoute, { token: admin, params: { webhookId: id } })).status).toBe(202);
      await until("the test event", () => to(`/after-${t}/credential-${t}`).length === 1);
    });
    const [arrived] = to(`/after-${t}/credential-${t}`);
    const verified = new Webhook(secret).verify(arrived!.body, arrived!.headers) as { type: string };
    expect(verified.type).toBe("webhook.test");
    expect(to(`/before-${t}`)).toHaveLength(0);

    const log = await logOf(id);
    expect(log.map((e) => e.action)).toEqual(["webhook.added", "webhook.changed"]);
    expect(log[1]).toMatchObject({
      reason: "moved",
      details: { url: `${receiver.base}/…`, events: ["operation.finished"] },
    });
    expect(JSON.stringify(log)).not.toContain(`credential-${t}`);
  });

  it("disables it: nothing queued or sent while disabled, its waiting deliveries sent once enabled", async () => {
    const t = tag();
    const admin = await tokenFor("admin");
    const domain = `pay-${t}`;
    await sql(`INSERT INTO domains (name, created_by) VALUES ($1, 'test')`, [domain]);
    await sql(`INSERT INTO domain_kinds (pattern, domain) VALUES ($1, $2)`, [`pay${t}.*`, domain]);
    const { id } = await addEndpoint(admin, `/paused-${t}`, { domain });
    while ((await processLogBatch()).entries > 0);

    // A delivery is waiting when the endpoint is disabled.
    expect((await call(testRoute, { token: admin, params: { webhookId: id } })).status).toBe(202);
    const disabled = await call(disableRoute, {
      token: admin,
      params: { webhookId: id },
      body: { reason: "maintenance" },
    });
    expect(disabled.status).toBe(200);
    expect(disabled.body.webhook.disabledAt).toEqual(expect.any(String));
    // Asking again changes nothing and logs nothing.
    expect(
      (await call(disableRoute, { token: admin, params: { webhookId: id }, body: { reason: "again" } })).status,
    ).toBe(200);
    const test = await call(testRoute, { token: admin, params: { webhookId: id } });
    expect(test).toMatchObject({ status: 409, body: { error: { code: "webhook-disabled" } } });

    await reportGaps([envelope(`pay${t}.charge`, `k-${t}`, 2)], `Cause${t}`);
    while ((await processLogBatch()).entries > 0);
    await withNotifier(async () => {
      await new Promise((r) => setTimeout(r, 500));
      expect(to(`/paused-${t}`)).toHaveLength(0);
    });
    expect((await stateOf(admin, id)).map((d) => [d.eventType, d.state, d.attempts])).toEqual([
      ["webhook.test", "pending", 0],
    ]);

    expect(
      (await call(enableRoute, { token: admin, params: { webhookId: id }, body: { reason: "back" } })).status,
    ).toBe(200);
    await withNotifier(() => until("the waiting delivery", () => to(`/paused-${t}`).length === 1));
    expect((await stateOf(admin, id)).map((d) => d.state)).toEqual(["delivered"]);
    expect((await logOf(id)).map((e) => [e.action, e.reason])).toEqual([
      ["webhook.added", "on call"],
      ["webhook.disabled", "maintenance"],
      ["webhook.enabled", "back"],
    ]);
  });

  it("sends a failed delivery again under its own webhook-id, once; a delivered one is refused", async () => {
    const t = tag();
    const admin = await tokenFor("admin");
    const path = `/down-${t}`;
    receiver.behaviours.set(path, () => "fail");
    const { id } = await addEndpoint(admin, path);
    const other = await addEndpoint(admin, `/other-${t}`);
    const queued = await call(testRoute, { token: admin, params: { webhookId: id } });
    const deliveryId = queued.body.delivery.id as string;
    await withNotifier(() =>
      until("two failed attempts", async () => (await stateOf(admin, id))[0]!.state === "failed"),
    );
    expect(to(path)).toHaveLength(2);

    const noReason = await call(redeliverRoute, { token: admin, params: { webhookId: id, deliveryId }, body: {} });
    expect(noReason.status).toBe(400);
    const elsewhere = await call(redeliverRoute, {
      token: admin,
      params: { webhookId: other.id, deliveryId },
      body: { reason: "x" },
    });
    expect(elsewhere.status).toBe(404);
    expect((await stateOf(admin, id))[0]!.state).toBe("failed");

    receiver.behaviours.delete(path);
    const again = await call(redeliverRoute, {
      token: admin,
      params: { webhookId: id, deliveryId },
      body: { reason: "endpoint fixed" },
    });
    expect(again.status).toBe(200);
    expect(again.body.delivery).toMatchObject({ id: deliveryId, state: "pending" });
    await withNotifier(() => until("the delivery", async () => (await stateOf(admin, id))[0]!.state === "delivered"));
    expect(to(path).map((r) => r.headers["webhook-id"])).toEqual([deliveryId, deliveryId, deliveryId]);
    expect((await stateOf(admin, id))[0]!.attempts).toBe(3);

    const delivered = await call(redeliverRoute, {
      token: admin,
      params: { webhookId: id, deliveryId },
      body: { reason: "once more" },
    });
    expect(delivered).toMatchObject({ status: 409, body: { error: { code: "already-delivered" } } });
    expect((await logOf(id)).map((e) => [e.action, e.reason, e.details.deliveryId ?? null])).toEqual([
      ["webhook.added", "on call", null],
      ["webhook.redelivered", "endpoint fixed", deliveryId],
    ]);
  });

  it("refuses every change to anyone but an admin", async () => {
    const admin = await tokenFor("admin");
    const { id } = await addEndpoint(admin, `/guarded-${tag()}`);
    for (const role of ["owner", "support", "auditor"] as const) {
      const token = await tokenFor(role);
      expect((await call(disableRoute, { token, params: { webhookId: id }, body: { reason: "x" } })).status).toBe(403);
      expect((await call(testRoute, { token, params: { webhookId: id } })).status).toBe(403);
    }
    expect(await stateOf(admin, id)).toEqual([]);
  });
});
