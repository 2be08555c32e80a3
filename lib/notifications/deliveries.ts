import { randomUUID } from "node:crypto";
import { type ChangeActor } from "@/lib/access";
import { appendDecision } from "@/lib/audit";
import { db } from "@/lib/db/client";
import { conflict, notFound } from "@/lib/domain/refusal";
import { existingWebhook } from "./endpoints";
import { TEST_EVENT_TYPE } from "./events";
import type { DeliveryView, WebhookView } from "./response-schemas";

// An endpoint's deliveries as admins see and steer them: each with its attempts, a test event on
// demand, and a failed (or waiting) delivery sent again under its own `webhook-id`, so a receiver
// that already has it recognises it.

type AttemptRow = Omit<DeliveryView["attemptLog"][number], "startedAt"> & { startedAt: string };
type DeliveryRow = Omit<DeliveryView, "nextAttemptAt" | "deliveredAt" | "createdAt" | "attemptLog"> & {
  nextAttemptAt: Date;
  deliveredAt: Date | null;
  createdAt: Date;
  attemptLog: AttemptRow[] | null;
};

function view(row: DeliveryRow): DeliveryView {
  return {
    ...row,
    nextAttemptAt: row.state === "pending" ? row.nextAttemptAt.toISOString() : null,
    deliveredAt: row.deliveredAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    attemptLog: (row.attemptLog ?? []).map((a) => ({ ...a, startedAt: new Date(a.startedAt).toISOString() })),
  };
}

async function readDeliveries(
  endpointId: string,
  query: { state?: string; limit: number; id?: string },
): Promise<DeliveryView[]> {
  const rows = await db().$queryRaw<DeliveryRow[]>`
    SELECT d.id, d.event_type AS "eventType", d.event_key AS "eventKey", d.state, d.attempts,
           d.next_attempt_at AS "nextAttemptAt", d.last_status AS "lastStatus",
           d.delivered_at AS "deliveredAt", d.created_at AS "createdAt",
           (SELECT jsonb_agg(jsonb_build_object(
                     'attempt', a.attempt, 'startedAt', a.started_at, 'durationMs', a.duration_ms,
                     'status', a.status, 'error', a.error)
                     ORDER BY a.attempt)
              FROM webhook_attempts a WHERE a.delivery_id = d.id) AS "attemptLog"
      FROM webhook_deliveries d
     WHERE d.endpoint_id = ${endpointId}::uuid
       AND (${query.state ?? null}::text IS NULL OR d.state = ${query.state ?? null})
       AND (${query.id ?? null}::text IS NULL OR d.id = ${query.id ?? null})
     ORDER BY d.created_at DESC, d.id LIMIT ${query.limit}`;
  return rows.map(view);
}

/** An endpoint's deliveries, newest first, each with its attempts. */
export function listDeliveries(endpointId: string, query: { state?: string; limit: number }): Promise<DeliveryView[]> {
  return readDeliveries(endpointId, query);
}

function refuseDisabled(webhook: WebhookView, what: string): void {
  if (webhook.disabledAt !== null) {
    throw conflict("webhook-disabled", `the endpoint is disabled: enable it before ${what}`);
  }
}

/**
 * Queues a `webhook.test` event for this endpoint only, due now: the notifier sends it like any
 * other (signed, retried), so its delivery shows whether the endpoint works end to end. Not a
 * decision, so not in the log; the payload names who asked.
 */
export async function sendTestEvent(webhookId: string, actor: ChangeActor): Promise<DeliveryView> {
  const webhook = await existingWebhook(webhookId);
  refuseDisabled(webhook, "testing it");
  const payload = {
    type: TEST_EVENT_TYPE,
    timestamp: new Date().toISOString(),
    data: { webhookId: webhook.id, sentBy: actor.label },
  };
  const [row] = await db().$queryRaw<{ id: string }[]>`
    INSERT INTO webhook_deliveries (endpoint_id, event_key, event_type, payload)
    VALUES (${webhook.id}::uuid, ${`test:${randomUUID()}`}, ${TEST_EVENT_TYPE}, ${JSON.stringify(payload)}::jsonb)
    RETURNING id`;
  return (await readDeliveries(webhook.id, { id: row!.id, limit: 1 }))[0]!;
}

/**
 * Sends a failed or waiting delivery again now, under the same `webhook-id`. A failed one gets one
 * more attempt (failing, it is failed again); a waiting one skips the rest of its backoff. One
 * being sent at this moment is refused: releasing it would let a second notifier send it at once.
 */
export async function redeliver(
  webhookId: string,
  deliveryId: string,
  reason: string,
  actor: ChangeActor,
): Promise<DeliveryView> {
  const webhook = await existingWebhook(webhookId);
  await db().$transaction(async (tx) => {
    const [row] = await tx.$queryRaw<{ state: string; eventType: string; inFlight: boolean }[]>`
      SELECT d.state, d.event_type AS "eventType",
             d.state = 'pending' AND d.next_attempt_at > now()
               AND d.attempts > coalesce((SELECT max(a.attempt) FROM webhook_attempts a WHERE a.delivery_id = d.id), 0)
               AS "inFlight"
        FROM webhook_deliveries d
       WHERE d.id = ${deliveryId} AND d.endpoint_id = ${webhook.id}::uuid
         FOR UPDATE`;
    if (!row) throw notFound(`no delivery ${deliveryId} of webhook ${webhook.id}`);
    if (row.state === "delivered") throw conflict("already-delivered", "the endpoint accepted this delivery already");
    if (row.inFlight) throw conflict("delivery-in-flight", "an attempt of this delivery is being sent now");
    refuseDisabled(webhook, "sending to it");
    await tx.$executeRaw`
      UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = now() WHERE id = ${deliveryId}`;
    await appendDecision(tx, {
      actor: actor.label,
      actorRole: actor.role,
      action: "webhook.redelivered",
      reason,
      details: { webhookId: webhook.id, deliveryId, eventType: row.eventType, was: row.state },
    });
  });
  return (await readDeliveries(webhook.id, { id: deliveryId, limit: 1 }))[0]!;
}
