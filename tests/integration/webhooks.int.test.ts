/**
 * Outgoing webhooks (docs/decisions/0032-notifications.md) against an HTTP receiver this
 * file starts on 127.0.0.1: a delivery that first fails (500), then times out, then is accepted
 * is retried with growing delays under one `webhook-id`, each attempt signed so that the
 * standardwebhooks package's Webhook.verify accepts it with the endpoint's secret, even with two
 * notifier loops running at once; a hanging endpoint does not delay another's delivery; an
 * endpoint of one domain gets none of another's events; a threshold crossing fires once.
 */
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { CLI_ACTOR } from "@/lib/access";
import { appendStandaloneDecision } from "@/lib/audit";
import { addWebhook as addWebhookAs, processLogBatch, checkThresholds } from "@/lib/notifications";
import { processMetrics } from "@/lib/metrics/process";
import { GET as deliveriesRoute } from "@/app/api/v1/webhooks/[webhookId]/deliveries/route";
import { POST as removeRoute } from "@/app/api/v1/webhooks/[webhookId]/remove/route";
import { GET as listRoute, POST as addRoute } from "@/app/api/v1/webhooks/route";
import { setupTestDatabase, withClient } from "../support/database";
import { call, tokenFor } from "../support/http";
import { envelope, reportGaps } from "../support/operations";
import { until, webhookReceiver, withNotifiers } from "../support/webhook-receiver";

const database = setupTestDatabase();
const sql = (text: string, params: unknown[] = []) => withClient(database.current.url, (c) => c.query(text, params));

const receiver = webhookReceiver();
const { behaviours } = receiver;

/** Adds an endpoint from the CLI, with the reason every change needs. */
const addWebhook = (input: Omit<Parameters<typeof addWebhookAs>[0], "reason">, actor: typeof CLI_ACTOR) =>
  addWebhookAs({ reason: "test", ...input }, actor);

const tag = () => `t${Math.random().toString(36).slice(2, 9)}`;

/** A domain of its own with the kinds `<prefix>.*`. */
async function domainWithKinds(name: string, prefix: string) {
  await sql(`INSERT INTO domains (name, created_by) VALUES ($1, 'test')`, [name]);
  await sql(`INSERT INTO domain_kinds (pattern, domain) VALUES ($1, $2)`, [`${prefix}.*`, name]);
}

const deliveriesOf = async (endpointId: string) =>
  (
    await sql(
      `SELECT id, event_key, event_type, state, attempts, payload FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY created_at`,
      [endpointId],
    )
  ).rows;

describe("webhook deliveries", () => {
  it("retry a failure and a timeout with growing delays under one id, each attempt signed, with two notifiers running", async () => {
    const t = tag();
    const domain = `pay-${t}`;
    await domainWithKinds(domain, `pay${t}`);
    const path = `/flaky-${t}`;
    behaviours.set(path, (n) => (n === 1 ? "fail" : n === 2 ? "hang" : "ok"));
    const { webhook, secret } = await addWebhook(
      { url: `${receiver.base}${path}`, domain, events: ["cause.new"] },
      CLI_ACTOR,
    );
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);

    const counted = async () =>
      Object.fromEntries(
        (await processMetrics().webhookDeliveries.get()).values.map((v) => [String(v.labels.outcome), v.value]),
      );
    const before = await counted();
    await reportGaps([envelope(`pay${t}.charge`, `k-${t}`, 2)], `Cause${t}`);
    await withNotifiers(2, {}, () =>
      until("the delivery accepted", async () =>
        (await deliveriesOf(webhook.id))[0]?.state === "delivered" ? true : undefined,
      ),
    );
    const requests = receiver.to(path);

    // Exactly three sends, however many notifiers: one id, each verified with the secret.
    expect(receiver.to(path)).toHaveLength(3);
    const ids = new Set(requests.map((r) => r.headers["webhook-id"]));
    expect(ids.size).toBe(1);
    const verifier = new Webhook(secret);
    for (const request of requests) {
      const payload = verifier.verify(request.body, request.headers) as { type: string; data: Record<string, unknown> };
      expect(payload).toMatchObject({
        type: "cause.new",
        data: { kind: `pay${t}.charge`, errorClass: `Cause${t}`, domain },
      });
    }
    // A body altered in transit is refused by the same check.
    expect(() => verifier.verify(requests[0]!.body.replace("cause.new", "cause.old"), requests[0]!.headers)).toThrow();

    // Backoff: 200 ms x 2^(n-1), jittered to half at least; the second try also waited out its
    // 1.5 s timeout before the delay started.
    const gap1 = requests[1]!.at - requests[0]!.at;
    const gap2 = requests[2]!.at - requests[1]!.at;
    expect(gap1).toBeGreaterThanOrEqual(100);
    expect(gap2).toBeGreaterThanOrEqual(1_500 + 200);

    const [delivery] = await deliveriesOf(webhook.id);
    expect(delivery).toMatchObject({ id: [...ids][0], state: "delivered", attempts: 3, event_type: "cause.new" });
    const attempts = (
      await sql(`SELECT * FROM webhook_attempts WHERE delivery_id = $1 ORDER BY attempt`, [delivery.id])
    ).rows;
    expect(
      attempts.map((a) => a.status),
      JSON.stringify(attempts),
    ).toEqual([500, null, 204]);
    // Only the status is kept: the endpoint's answer is neither stored nor shown.
    expect(JSON.stringify(attempts)).not.toContain("boom");
    const shown = await call(deliveriesRoute, { token: await tokenFor("admin"), params: { webhookId: webhook.id } });
    expect(shown.status).toBe(200);
    expect(JSON.stringify(shown.body)).not.toContain("boom");
    expect(Object.keys(shown.body.deliveries[0].attemptLog[0]).sort()).toEqual([
      "attempt",
      "durationMs",
      "error",
      "startedAt",
      "status",
    ]);
    expect(attempts[1].error).toBe("no answer within 1500 ms");
    expect(attempts[1].duration_ms).toBeGreaterThanOrEqual(1_490);
    expect((await deliveriesOf(webhook.id)).length).toBe(1);
    // The metric counts each attempt by outcome.
    const after = await counted();
    expect((after.retrying ?? 0) - (before.retrying ?? 0)).toBe(2);
    expect((after.delivered ?? 0) - (before.delivered ?? 0)).toBe(1);
  });

  it("deliver to a working endpoint while another hangs", async () => {
    const t = tag();
    const domain = `pay-${t}`;
    await domainWithKinds(domain, `pay${t}`);
    behaviours.set(`/hang-${t}`, () => "hang");
    const slow = await addWebhook({ url: `${receiver.base}/hang-${t}`, domain, events: ["cause.new"] }, CLI_ACTOR);
    const fast = await addWebhook({ url: `${receiver.base}/fast-${t}`, domain, events: ["cause.new"] }, CLI_ACTOR);
    // Five events, so the hanging endpoint has more waiting than the notifier has slots.
    await reportGaps(
      [1, 2, 3, 4, 5].map((i) => envelope(`pay${t}.k${i}`, `k-${t}-${i}`, 2)),
      `Cause${t}`,
    );
    await withNotifiers(1, { timeoutMs: 10_000, concurrency: 2 }, async () => {
      await until("five deliveries to the working endpoint", () =>
        receiver.to(`/fast-${t}`).length >= 5 ? true : undefined,
      );
      // All five arrived while the first attempt at the hanging endpoint still waits.
      expect(receiver.to(`/hang-${t}`)).toHaveLength(1);
      const slowAttempts = await sql(
        `SELECT count(*)::int AS n FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.endpoint_id = $1`,
        [slow.webhook.id],
      );
      expect(slowAttempts.rows[0].n).toBe(0);
    });
    expect((await deliveriesOf(fast.webhook.id)).every((d) => d.state === "delivered")).toBe(true);
    expect((await deliveriesOf(slow.webhook.id)).every((d) => d.state === "pending")).toBe(true);
  });
});

describe("events", () => {
  it("reach an endpoint of the event's domain or of every domain, never one of another domain", async () => {
    const t = tag();
    await domainWithKinds(`payments-${t}`, `pay${t}`);
    await domainWithKinds(`messaging-${t}`, `msg${t}`);
    const payments = await addWebhook({ url: `${receiver.base}/p-${t}`, domain: `payments-${t}` }, CLI_ACTOR);
    const messaging = await addWebhook({ url: `${receiver.base}/m-${t}`, domain: `messaging-${t}` }, CLI_ACTOR);
    const everyDomain = await addWebhook({ url: `${receiver.base}/all-${t}`, events: ["cause.new"] }, CLI_ACTOR);

    const [reviewId] = await reportGaps([envelope(`msg${t}.email`, `k-${t}`, 2)], `Cause${t}`, "effect-result-unknown");
    while ((await processLogBatch()).entries > 0);

    const mine = async (endpointId: string) =>
      (await deliveriesOf(endpointId)).filter((d) => d.payload.data.reviewId === reviewId).map((d) => d.event_type);
    expect((await mine(messaging.webhook.id)).sort()).toEqual(["cause.new", "effect-result-unknown.reported"]);
    expect(await mine(everyDomain.webhook.id)).toEqual(["cause.new"]);
    expect(await mine(payments.webhook.id)).toEqual([]);

    // The same cause again is not new.
    const [again] = await reportGaps([envelope(`msg${t}.email`, `k2-${t}`, 2)], `Cause${t}`, "effect-result-unknown");
    while ((await processLogBatch()).entries > 0);
    const later = (await deliveriesOf(messaging.webhook.id)).filter((d) => d.payload.data.reviewId === again);
    expect(later.map((d) => d.event_type)).toEqual(["effect-result-unknown.reported"]);
  });

  it("include an approval request, mapped by its action name, for the approval's domain", async () => {
    const t = tag();
    await domainWithKinds(`payments-${t}`, `pay${t}`);
    const payments = await addWebhook(
      { url: `${receiver.base}/p-${t}`, domain: `payments-${t}`, events: ["approval.requested"] },
      CLI_ACTOR,
    );
    const other = await addWebhook(
      { url: `${receiver.base}/o-${t}`, domain: null, events: ["operation.finished"] },
      CLI_ACTOR,
    );
    const approvalId = crypto.randomUUID();
    await appendStandaloneDecision({
      actor: "user:alice@example.test",
      actorRole: "owner",
      action: "approval.requested",
      reason: "refund twice",
      details: {
        approvalId,
        domain: `payments-${t}`,
        decision: { action: "cancel", reviewId: crypto.randomUUID() },
        requestedBy: "user:alice@example.test",
        expiresAt: "2026-12-03T00:00:00.000Z",
      },
    });
    while ((await processLogBatch()).entries > 0);
    const [delivery] = (await deliveriesOf(payments.webhook.id)).filter(
      (d) => d.payload.data.approvalId === approvalId,
    );
    expect(delivery).toMatchObject({
      event_type: "approval.requested",
      payload: {
        type: "approval.requested",
        data: { domain: `payments-${t}`, requestedBy: "user:alice@example.test" },
      },
    });
    expect((await deliveriesOf(other.webhook.id)).filter((d) => d.payload.data.approvalId === approvalId)).toEqual([]);
  });

  it("never queue one event twice for an endpoint, with two log readers at once", async () => {
    const t = tag();
    const everyDomain = await addWebhook({ url: `${receiver.base}/twice-${t}`, events: ["cause.new"] }, CLI_ACTOR);
    await reportGaps(
      Array.from({ length: 30 }, (_, i) => envelope(`twice${t}.k${i}`, `k-${t}-${i}`, 2)),
      `Cause${t}`,
    );
    await Promise.all([processLogBatch(7), processLogBatch(7), processLogBatch(7)]);
    while ((await processLogBatch(7)).entries > 0);
    const rows = await deliveriesOf(everyDomain.webhook.id);
    expect(rows).toHaveLength(30);
    expect(new Set(rows.map((r) => r.event_key)).size).toBe(30);
  });

  it("fire a threshold crossing once, and again only after the level went back below", async () => {
    const t = tag();
    const domain = `thr-${t}`;
    await domainWithKinds(domain, `thr${t}`);
    const endpoint = await addWebhook(
      { url: `${receiver.base}/thr-${t}`, domain, events: ["open.above"], openAbove: 2 },
      CLI_ACTOR,
    );
    const report = (n: number, round: string) =>
      reportGaps(
        Array.from({ length: n }, (_, i) => envelope(`thr${t}.k`, `k-${t}-${round}-${i}`, 2)),
        `Cause${t}`,
      );
    const thresholds = async () =>
      (await deliveriesOf(endpoint.webhook.id)).filter((d) => d.event_type === "open.above");

    await report(2, "a");
    await checkThresholds();
    expect(await thresholds()).toHaveLength(0);
    const ids = await report(1, "b");
    await checkThresholds();
    await checkThresholds();
    expect((await thresholds()).map((d) => d.payload.data)).toEqual([{ domain, value: 3, threshold: 2, crossing: 1 }]);
    // Above still, more records: no second event.
    await report(2, "c");
    await checkThresholds();
    expect(await thresholds()).toHaveLength(1);

    // Every one cancelled (0 open, below again), then up again: a second crossing.
    await sql(
      `UPDATE review_records SET status = 'cancelled', updated_at = now() WHERE kind = $1 AND id <> ALL($2::uuid[])`,
      [`thr${t}.k`, ids],
    );
    await sql(`UPDATE review_records SET status = 'cancelled' WHERE id = ANY($1::uuid[])`, [ids]);
    await checkThresholds();
    expect(await thresholds()).toHaveLength(1);
    await report(3, "d");
    await checkThresholds();
    expect((await thresholds()).map((d) => d.payload.data.crossing)).toEqual([1, 2]);
  });
});

describe("the API", () => {
  it("lets an admin add, list and remove endpoints, each in the decision log, the secret shown once", async () => {
    const t = tag();
    const admin = await tokenFor("admin");
    // A Slack URL's path is its credential: the append-only log keeps scheme and host only.
    const url = `${receiver.base}/services/T${t}/B${t}/slack-credential-${t}`;
    const added = await call(addRoute, {
      token: admin,
      body: { url, events: ["cause.new", "operation.finished"], format: "slack", reason: "on call" },
    });
    expect(added.status).toBe(201);
    expect(added.body.secret).toMatch(/^whsec_/);
    const id = added.body.webhook.id as string;
    expect(added.body.webhook).toMatchObject({ url, domain: null, format: "slack" });

    const listed = await call(listRoute, { token: admin });
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).not.toContain(added.body.secret.slice(6));
    expect(listed.body.webhooks.map((w: { id: string }) => w.id)).toContain(id);
    const stored = (await sql(`SELECT secret_sealed FROM webhook_endpoints WHERE id = $1`, [id])).rows[0];
    expect(stored.secret_sealed).not.toContain(added.body.secret.slice(6));

    const deliveries = await call(deliveriesRoute, { token: admin, params: { webhookId: id } });
    expect(deliveries).toMatchObject({ status: 200, body: { deliveries: [] } });

    // Removing needs a reason, like every other change.
    const noReason = await call(removeRoute, { token: admin, params: { webhookId: id }, body: {} });
    expect(noReason.status).toBe(400);
    expect(noReason.body.error.issues.map((i: { path: string }) => i.path)).toEqual(["reason"]);
    const removed = await call(removeRoute, { token: admin, params: { webhookId: id }, body: { reason: "done" } });
    expect(removed.status).toBe(200);
    expect(
      (await call(removeRoute, { token: admin, params: { webhookId: id }, body: { reason: "again" } })).status,
    ).toBe(404);
    const logged = await sql(
      `SELECT action, reason, details FROM decision_log WHERE action LIKE 'webhook.%' AND details->>'webhookId' = $1 ORDER BY seq`,
      [id],
    );
    expect(logged.rows.map((r) => ({ action: r.action, reason: r.reason, url: r.details.url }))).toEqual([
      { action: "webhook.added", reason: "on call", url: `${receiver.base}/…` },
      { action: "webhook.removed", reason: "done", url: `${receiver.base}/…` },
    ]);
    expect(JSON.stringify(logged.rows)).not.toContain(`slack-credential-${t}`);
  });

  it("refuses bad input naming the field, and anyone but an admin, changing nothing", async () => {
    const t = tag();
    const admin = await tokenFor("admin");
    const before = (await sql(`SELECT count(*)::int AS n FROM webhook_endpoints`)).rows[0].n;
    const cases: [unknown, string][] = [
      [{ url: "ftp://example.test/x" }, "url"],
      [{ url: "javascript:alert(1)" }, "url"],
      [{ url: "http://user:pw@example.test/" }, "url"],
      [{ url: `${receiver.base}/x`, domain: `no-such-${t}`, reason: "test" }, "domain"],
      [{ url: `${receiver.base}/x`, events: ["cause.old"] }, "events.0"],
      [{ url: `${receiver.base}/x`, events: [] }, "events"],
      [{ url: `${receiver.base}/x`, format: "xml" }, "format"],
      [{ url: `${receiver.base}/x`, openAbove: 0 }, "openAbove"],
      [{ url: `${receiver.base}/x`, secret: "mine" }, ""],
      [{ url: `${receiver.base}/x` }, "reason"],
      [{ url: `${receiver.base}/x`, reason: "  " }, "reason"],
    ];
    for (const [body, field] of cases) {
      const answer = await call(addRoute, { token: admin, body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      if (field)
        expect(
          answer.body.error.issues.map((i: { path: string }) => i.path),
          JSON.stringify(body),
        ).toContain(field);
    }
    for (const role of ["owner", "auditor", "support"] as const) {
      expect((await call(addRoute, { token: await tokenFor(role), body: { url: `${receiver.base}/x` } })).status).toBe(
        403,
      );
      expect((await call(listRoute, { token: await tokenFor(role) })).status).toBe(403);
    }
    expect((await call(deliveriesRoute, { token: admin, params: { webhookId: "not-a-uuid" } })).status).toBe(404);
    expect((await sql(`SELECT count(*)::int AS n FROM webhook_endpoints`)).rows[0].n).toBe(before);
  });
});
