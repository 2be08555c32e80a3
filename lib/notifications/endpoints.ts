import { type ChangeActor } from "@/lib/access";
import { appendDecision } from "@/lib/audit/append";
import { db } from "@/lib/db/client";
import { isUuid } from "@/lib/domain/ids";
import { invalidField, notFound } from "@/lib/domain/refusal";
import { resolvedDestinationRefusal } from "./destination";
import { type CreateWebhookRequest, createWebhookSchema } from "./endpoint-schema";
import { newEndpointSecret, sealSecret } from "./secret-box";

// Webhook endpoints, managed by admins (API, CLI, console): each change is a decision-log entry in
// the same transaction. The secret is returned once, at creation, like a token.

/**
 * A URL as the append-only log keeps it: scheme and host (and port) only. The path and query
 * can be a credential (a Slack webhook URL is one), and the log can never forget it.
 */
export function redactedUrl(url: string): string {
  const { protocol, host } = new URL(url);
  return `${protocol}//${host}/…`;
}

export interface WebhookView {
  id: string;
  url: string;
  domain: string | null;
  events: string[];
  format: string;
  openAbove: number | null;
  oldestOpenAboveSeconds: number | null;
  createdBy: string;
  createdAt: string;
  deliveries: { pending: number; delivered: number; failed: number };
}

interface WebhookRow extends Omit<WebhookView, "createdAt" | "deliveries"> {
  createdAt: Date;
  pending: number;
  delivered: number;
  failed: number;
}

function view(row: WebhookRow): WebhookView {
  const { pending, delivered, failed, createdAt, ...rest } = row;
  return { ...rest, createdAt: createdAt.toISOString(), deliveries: { pending, delivered, failed } };
}

async function readWebhooks(id?: string): Promise<WebhookView[]> {
  const rows = await db().$queryRaw<WebhookRow[]>`
    SELECT e.id::text AS id, e.url, e.domain, e.events, e.format, e.open_above AS "openAbove",
           e.oldest_open_above_seconds AS "oldestOpenAboveSeconds", e.created_by AS "createdBy",
           e.created_at AS "createdAt",
           count(d.id) FILTER (WHERE d.state = 'pending')::int AS pending,
           count(d.id) FILTER (WHERE d.state = 'delivered')::int AS delivered,
           count(d.id) FILTER (WHERE d.state = 'failed')::int AS failed
      FROM webhook_endpoints e LEFT JOIN webhook_deliveries d ON d.endpoint_id = e.id
     WHERE ${id ?? null}::uuid IS NULL OR e.id = ${id ?? null}::uuid
     GROUP BY e.id ORDER BY e.created_at, e.id`;
  return rows.map(view);
}

export function listWebhooks(): Promise<WebhookView[]> {
  return readWebhooks();
}

export async function getWebhook(id: string): Promise<WebhookView | null> {
  if (!isUuid(id)) return null;
  return (await readWebhooks(id.toLowerCase()))[0] ?? null;
}

/** Adds an endpoint; `secret` is its signing secret, returned this once. */
export async function addWebhook(
  input: CreateWebhookRequest,
  actor: ChangeActor,
): Promise<{ webhook: WebhookView; secret: string }> {
  const request = createWebhookSchema.parse(input);
  // The schema refused an internal address written in the URL; a name is resolved here, every
  // address it has checked (each delivery checks again: a name can change its answer).
  const refusal = await resolvedDestinationRefusal(request.url);
  if (refusal !== null) throw invalidField("url", `must be a public address: ${refusal}`, "internal-destination");
  const secret = newEndpointSecret();
  const id = await db().$transaction(async (tx) => {
    if (request.domain !== null) {
      const known = await tx.$queryRaw<unknown[]>`SELECT 1 FROM domains WHERE name = ${request.domain}`;
      if (known.length === 0) throw invalidField("domain", `no domain ${request.domain}`, "unknown-domain");
    }
    const events = [...new Set(request.events)];
    const [row] = await tx.$queryRaw<{ id: string }[]>`
      INSERT INTO webhook_endpoints (url, domain, events, format, secret_sealed, open_above,
                                     oldest_open_above_seconds, created_by)
      VALUES (${request.url}, ${request.domain}, ${JSON.stringify(events)}::jsonb, ${request.format},
              ${sealSecret(secret)}, ${request.openAbove}, ${request.oldestOpenAboveSeconds}, ${actor.label})
      RETURNING id::text AS id`;
    await appendDecision(tx, {
      actor: actor.label,
      actorRole: actor.role,
      action: "webhook.added",
      reason: request.reason,
      details: {
        webhookId: row!.id,
        url: redactedUrl(request.url),
        domain: request.domain,
        events,
        format: request.format,
        openAbove: request.openAbove,
        oldestOpenAboveSeconds: request.oldestOpenAboveSeconds,
      },
    });
    return row!.id;
  });
  return { webhook: (await getWebhook(id))!, secret };
}

/** Removes an endpoint and its deliveries (their history goes with it; the log keeps the change). */
export async function removeWebhook(id: string, reason: string, actor: ChangeActor): Promise<WebhookView> {
  const existing = await getWebhook(id);
  if (!existing) throw notFound(`no webhook ${id}`);
  await db().$transaction(async (tx) => {
    const gone = await tx.$executeRaw`DELETE FROM webhook_endpoints WHERE id = ${existing.id}::uuid`;
    if (gone === 0) throw notFound(`no webhook ${id}`);
    await appendDecision(tx, {
      actor: actor.label,
      actorRole: actor.role,
      action: "webhook.removed",
      reason,
      details: { webhookId: existing.id, url: redactedUrl(existing.url), domain: existing.domain },
    });
  });
  return existing;
}

export interface AttemptView {
  attempt: number;
  startedAt: string;
  durationMs: number;
  status: number | null;
  error: string | null;
}

export interface DeliveryView {
  /** The `webhook-id` header: the same on every attempt. */
  id: string;
  eventType: string;
  eventKey: string;
  state: string;
  attempts: number;
  nextAttemptAt: string | null;
  lastStatus: number | null;
  deliveredAt: string | null;
  createdAt: string;
  attemptLog: AttemptView[];
}

/** An endpoint's deliveries, newest first, each with its attempts. */
export async function listDeliveries(
  endpointId: string,
  query: { state?: string; limit: number },
): Promise<DeliveryView[]> {
  const rows = await db().$queryRaw<
    (Omit<DeliveryView, "nextAttemptAt" | "deliveredAt" | "createdAt" | "attemptLog"> & {
      nextAttemptAt: Date;
      deliveredAt: Date | null;
      createdAt: Date;
      attemptLog: (Omit<AttemptView, "startedAt"> & { startedAt: string })[] | null;
    })[]
  >`
    SELECT d.id, d.event_type AS "eventType", d.event_key AS "eventKey", d.state, d.attempts,
           d.next_attempt_at AS "nextAttemptAt", d.last_status AS "lastStatus",
           d.delivered_at AS "deliveredAt", d.created_at AS "createdAt",
           (SELECT jsonb_agg(jsonb_build_object(
                     'attempt', a.attempt, 'startedAt', a.started_at, 'durationMs', a.duration_ms,
                     'status', a.status, 'error', a.error)
                     ORDER BY a.attempt)
              FROM webhook_attempts a WHERE a.delivery_id = d.id) AS "attemptLog"
      FROM webhook_deliveries d
     WHERE d.endpoint_id = ${endpointId}::uuid AND (${query.state ?? null}::text IS NULL OR d.state = ${query.state ?? null})
     ORDER BY d.created_at DESC, d.id LIMIT ${query.limit}`;
  return rows.map((row) => ({
    ...row,
    nextAttemptAt: row.state === "pending" ? row.nextAttemptAt.toISOString() : null,
    deliveredAt: row.deliveredAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    attemptLog: (row.attemptLog ?? []).map((a) => ({ ...a, startedAt: new Date(a.startedAt).toISOString() })),
  }));
}
