import { type ChangeActor } from "@/lib/access";
import { appendDecision } from "@/lib/audit";
import { db } from "@/lib/db/client";
import type { Prisma } from "@/lib/generated/prisma/client";
import { isUuid } from "@/lib/domain/ids";
import { invalidField, notFound } from "@/lib/domain/refusal";
import { resolvedDestinationRefusal } from "./destination";
import { type WebhookDefinition, webhookDefinitionSchema } from "./endpoint-schema";
import type { WebhookView } from "./response-schemas";
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

interface WebhookRow extends Omit<WebhookView, "createdAt" | "disabledAt" | "deliveries" | "events" | "format"> {
  events: WebhookView["events"];
  format: WebhookView["format"];
  createdAt: Date;
  disabledAt: Date | null;
  pending: number;
  delivered: number;
  failed: number;
}

function view(row: WebhookRow): WebhookView {
  const { pending, delivered, failed, createdAt, disabledAt, ...rest } = row;
  return {
    ...rest,
    createdAt: createdAt.toISOString(),
    disabledAt: disabledAt?.toISOString() ?? null,
    deliveries: { pending, delivered, failed },
  };
}

async function readWebhooks(id?: string): Promise<WebhookView[]> {
  const rows = await db().$queryRaw<WebhookRow[]>`
    SELECT e.id::text AS id, e.url, e.domain, e.events, e.format, e.open_above AS "openAbove",
           e.oldest_open_above_seconds AS "oldestOpenAboveSeconds", e.created_by AS "createdBy",
           e.created_at AS "createdAt", e.disabled_at AS "disabledAt",
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

/** The endpoint, or the 404 every route answers for an unknown (or malformed) id. */
export async function existingWebhook(id: string): Promise<WebhookView> {
  const webhook = await getWebhook(id);
  if (!webhook) throw notFound(`no webhook ${id}`);
  return webhook;
}

type Definition = ReturnType<typeof webhookDefinitionSchema.parse>;

/**
 * A definition as it is stored, once its URL's name resolves to public addresses only (the
 * schema refused an internal address written in the URL; each delivery checks again: a name can
 * change its answer) and its domain exists. What the log says of it: never the URL's path.
 */
async function checkedDefinition(tx: Prisma.TransactionClient, input: WebhookDefinition) {
  const request = webhookDefinitionSchema.parse(input);
  const refusal = await resolvedDestinationRefusal(request.url);
  if (refusal !== null) throw invalidField("url", `must be a public address: ${refusal}`, "internal-destination");
  if (request.domain !== null) {
    const known = await tx.$queryRaw<unknown[]>`SELECT 1 FROM domains WHERE name = ${request.domain}`;
    if (known.length === 0) throw invalidField("domain", `no domain ${request.domain}`, "unknown-domain");
  }
  const definition: Definition = { ...request, events: [...new Set(request.events)] };
  const { domain, events, format, openAbove, oldestOpenAboveSeconds } = definition;
  return {
    definition,
    logged: { url: redactedUrl(definition.url), domain, events, format, openAbove, oldestOpenAboveSeconds },
  };
}

/** Adds an endpoint; `secret` is its signing secret, returned this once. */
export async function addWebhook(
  input: WebhookDefinition,
  actor: ChangeActor,
): Promise<{ webhook: WebhookView; secret: string }> {
  const secret = newEndpointSecret();
  const id = await db().$transaction(async (tx) => {
    const { definition: d, logged } = await checkedDefinition(tx, input);
    const [row] = await tx.$queryRaw<{ id: string }[]>`
      INSERT INTO webhook_endpoints (url, domain, events, format, secret_sealed, open_above,
                                     oldest_open_above_seconds, created_by)
      VALUES (${d.url}, ${d.domain}, ${JSON.stringify(d.events)}::jsonb, ${d.format}, ${sealSecret(secret)},
              ${d.openAbove}, ${d.oldestOpenAboveSeconds}, ${actor.label})
      RETURNING id::text AS id`;
    await appendDecision(tx, {
      actor: actor.label,
      actorRole: actor.role,
      action: "webhook.added",
      reason: d.reason,
      details: { webhookId: row!.id, ...logged },
    });
    return row!.id;
  });
  return { webhook: (await getWebhook(id))!, secret };
}

/**
 * Replaces an endpoint's definition (PUT: every field again; one left out takes its default).
 * Its secret, deliveries and disabled state stay. A threshold that changes is re-armed.
 */
export async function changeWebhook(id: string, input: WebhookDefinition, actor: ChangeActor): Promise<WebhookView> {
  const existing = await existingWebhook(id);
  await db().$transaction(async (tx) => {
    const { definition: d, logged } = await checkedDefinition(tx, input);
    const changed = await tx.$executeRaw`
      UPDATE webhook_endpoints
         SET url = ${d.url}, domain = ${d.domain}, events = ${JSON.stringify(d.events)}::jsonb, format = ${d.format},
             open_above = ${d.openAbove}, oldest_open_above_seconds = ${d.oldestOpenAboveSeconds}
       WHERE id = ${existing.id}::uuid`;
    if (changed === 0) throw notFound(`no webhook ${id}`);
    if (d.openAbove !== existing.openAbove || d.oldestOpenAboveSeconds !== existing.oldestOpenAboveSeconds) {
      await tx.$executeRaw`DELETE FROM webhook_threshold_states WHERE endpoint_id = ${existing.id}::uuid`;
    }
    await appendDecision(tx, {
      actor: actor.label,
      actorRole: actor.role,
      action: "webhook.changed",
      reason: d.reason,
      details: { webhookId: existing.id, was: { url: redactedUrl(existing.url), domain: existing.domain }, ...logged },
    });
  });
  return (await getWebhook(existing.id))!;
}

/**
 * Disables an endpoint (nothing new is queued for it; its pending deliveries wait) or enables it
 * again (each is sent when its next attempt is due, most of them at once: their time passed while
 * they waited). Asking for the state it is in changes nothing and logs nothing.
 */
export async function setWebhookEnabled(
  id: string,
  enabled: boolean,
  reason: string,
  actor: ChangeActor,
): Promise<WebhookView> {
  const existing = await existingWebhook(id);
  await db().$transaction(async (tx) => {
    const changed = enabled
      ? await tx.$executeRaw`
          UPDATE webhook_endpoints SET disabled_at = NULL WHERE id = ${existing.id}::uuid AND disabled_at IS NOT NULL`
      : await tx.$executeRaw`
          UPDATE webhook_endpoints SET disabled_at = now() WHERE id = ${existing.id}::uuid AND disabled_at IS NULL`;
    if (changed === 0) return;
    await appendDecision(tx, {
      actor: actor.label,
      actorRole: actor.role,
      action: enabled ? "webhook.enabled" : "webhook.disabled",
      reason,
      details: { webhookId: existing.id, url: redactedUrl(existing.url), domain: existing.domain },
    });
  });
  return (await getWebhook(existing.id))!;
}

/** Removes an endpoint and its deliveries (their history goes with it; the log keeps the change). */
export async function removeWebhook(id: string, reason: string, actor: ChangeActor): Promise<WebhookView> {
  const existing = await existingWebhook(id);
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
