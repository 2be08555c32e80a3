import { Webhook } from "standardwebhooks";
import { db } from "@/lib/db/client";
import { log } from "@/lib/log";
import { processMetrics } from "@/lib/metrics/process";
import { postOnce } from "./post";
import { openSecret } from "./secret-box";
import { slackPayload } from "./slack";

// Sending the outbox: claim due deliveries (a lease, so two notifiers never send one at the same
// time), POST each outside any transaction with a timeout, record the attempt, and schedule the
// next try with exponential backoff and jitter, up to a limit. A receiver may still see one
// delivery twice (a notifier that dies after sending, before recording): the `webhook-id` is the
// same each time, which is what Standard Webhooks receivers deduplicate on.

export interface DeliveryOptions {
  /** Per attempt. */
  timeoutMs: number;
  /** Attempts before a delivery is `failed`. */
  maxAttempts: number;
  /** First retry delay; each next one doubles, capped at maxDelayMs, then jittered. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Deliveries this notifier sends at once. */
  concurrency: number;
}

export const DEFAULT_DELIVERY_OPTIONS: DeliveryOptions = {
  timeoutMs: 5_000,
  maxAttempts: 8,
  baseDelayMs: 10_000,
  maxDelayMs: 3_600_000,
  concurrency: 4,
};

/** Delay before attempt `attempt + 1`: base * 2^(attempt - 1), capped, times 0.5 to 1 (jitter). */
export function retryDelayMs(
  attempt: number,
  options: Pick<DeliveryOptions, "baseDelayMs" | "maxDelayMs">,
  random = Math.random,
) {
  const exponential = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exponential * (0.5 + random() / 2));
}

export interface ClaimedDelivery {
  id: string;
  endpointId: string;
  url: string;
  format: string;
  secretSealed: string;
  payload: { type: string; timestamp: string; data: Record<string, unknown> };
  attempt: number;
}

/**
 * Takes up to `limit` due deliveries, at most one per endpoint and none of `busyEndpoints` (those
 * this notifier is already sending to): a slow endpoint holds one slot, never all of them. The
 * claim pushes next_attempt_at past the attempt's timeout; the UPDATE re-checks state and time on
 * the locked row, so of two notifiers racing for one delivery only one gets it. A disabled
 * endpoint's deliveries wait.
 */
export async function claimDeliveries(
  limit: number,
  busyEndpoints: string[],
  options: DeliveryOptions,
): Promise<ClaimedDelivery[]> {
  if (limit <= 0) return [];
  const leaseMs = options.timeoutMs + 30_000;
  return db().$queryRaw<ClaimedDelivery[]>`
    WITH due AS (
      SELECT DISTINCT ON (endpoint_id) id FROM webhook_deliveries
       WHERE state = 'pending' AND next_attempt_at <= now() AND endpoint_id <> ALL(${busyEndpoints}::uuid[])
         AND endpoint_id IN (SELECT id FROM webhook_endpoints WHERE disabled_at IS NULL)
       ORDER BY endpoint_id, next_attempt_at
    ), claimed AS (
      UPDATE webhook_deliveries d
         SET attempts = d.attempts + 1, next_attempt_at = now() + make_interval(secs => ${leaseMs / 1000}::float8)
       WHERE d.id IN (SELECT id FROM due LIMIT ${limit}) AND d.state = 'pending' AND d.next_attempt_at <= now()
      RETURNING d.id, d.endpoint_id, d.payload, d.attempts
    )
    SELECT c.id, c.endpoint_id::text AS "endpointId", e.url, e.format, e.secret_sealed AS "secretSealed",
           c.payload, c.attempts AS attempt
      FROM claimed c JOIN webhook_endpoints e ON e.id = c.endpoint_id`;
}

export interface AttemptResult {
  status: number | null;
  error: string | null;
  durationMs: number;
  startedAt: Date;
}

/** The request of one attempt: the body and headers the format says. */
export function requestOf(delivery: ClaimedDelivery, now: Date): { body: string; headers: Record<string, string> } {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": "review-console-webhooks",
    "webhook-id": delivery.id,
  };
  if (delivery.format === "slack") return { body: JSON.stringify(slackPayload(delivery.payload)), headers };
  const body = JSON.stringify(delivery.payload);
  const webhook = new Webhook(openSecret(delivery.secretSealed));
  headers["webhook-timestamp"] = String(Math.floor(now.getTime() / 1000));
  headers["webhook-signature"] = webhook.sign(delivery.id, now, body);
  return { body, headers };
}

/**
 * One POST. Null when `stop` ended it (the notifier is shutting down): nothing is recorded, and
 * the lease runs out, so another notifier tries again later under the same id.
 */
export async function attemptDelivery(
  delivery: ClaimedDelivery,
  options: DeliveryOptions,
  stop?: AbortSignal,
): Promise<AttemptResult | null> {
  const startedAt = new Date();
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = stop ? AbortSignal.any([timeout, stop]) : timeout;
  try {
    const { body, headers } = requestOf(delivery, startedAt);
    // Redirects are not followed: the admin chose this URL, not wherever it points next. Only the
    // status is kept (an endpoint inside a network must not become readable through the console).
    const status = await postOnce(delivery.url, body, headers, signal);
    return { status, error: null, durationMs: elapsed(), startedAt };
  } catch (error) {
    if (stop?.aborted) return null;
    const message = timeout.aborted ? `no answer within ${options.timeoutMs} ms` : (error as Error).message;
    return { status: null, error: message.slice(0, 500), durationMs: elapsed(), startedAt };
  }
}

export type Outcome = "delivered" | "retrying" | "failed";

/** Records the attempt and what becomes of the delivery. */
export async function recordAttempt(
  delivery: ClaimedDelivery,
  result: AttemptResult,
  options: DeliveryOptions,
): Promise<Outcome> {
  const ok = result.status !== null && result.status >= 200 && result.status < 300;
  const outcome: Outcome = ok ? "delivered" : delivery.attempt >= options.maxAttempts ? "failed" : "retrying";
  const delayMs = outcome === "retrying" ? retryDelayMs(delivery.attempt, options) : 0;
  await db().$transaction([
    db().$executeRaw`
      INSERT INTO webhook_attempts (delivery_id, attempt, started_at, duration_ms, status, error)
      VALUES (${delivery.id}, ${delivery.attempt}, ${result.startedAt}, ${result.durationMs}, ${result.status},
              ${result.error})
      ON CONFLICT (delivery_id, attempt) DO NOTHING`,
    db().$executeRaw`
      UPDATE webhook_deliveries
         SET state = ${outcome === "retrying" ? "pending" : outcome}, last_status = ${result.status},
             delivered_at = CASE WHEN ${ok} THEN now() ELSE delivered_at END,
             next_attempt_at = now() + make_interval(secs => ${delayMs / 1000}::float8)
       WHERE id = ${delivery.id} AND attempts = ${delivery.attempt}`,
  ]);
  processMetrics().webhookDeliveries.inc({ outcome });
  if (outcome === "failed") {
    log.warn(
      { deliveryId: delivery.id, endpointId: delivery.endpointId, status: result.status },
      "webhook delivery failed",
    );
  }
  return outcome;
}
