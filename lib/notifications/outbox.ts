import type { Prisma } from "@/lib/generated/prisma/client";
import { endpointWants, type NotificationEvent, standardPayload } from "./events";

type Tx = Pick<Prisma.TransactionClient, "$queryRaw" | "$executeRaw">;

export interface EndpointTarget {
  id: string;
  domain: string | null;
  events: string[];
}

/** The endpoints events are queued for: a disabled one gets none (docs/decisions/0048). */
export function readEndpointTargets(tx: Tx): Promise<EndpointTarget[]> {
  return tx.$queryRaw<EndpointTarget[]>`
    SELECT id::text AS id, domain, events FROM webhook_endpoints WHERE disabled_at IS NULL`;
}

/**
 * Queues each event for each endpoint that wants it: one outbox row per endpoint and event. A
 * row that exists already (another notifier, a retried step) stays as it is, with its id: the
 * unique (endpoint_id, event_key) is what keeps one event under one `webhook-id`.
 */
export async function enqueue(tx: Tx, events: NotificationEvent[], endpoints: EndpointTarget[]): Promise<number> {
  const rows: { endpointId: string; key: string; type: string; payload: string }[] = [];
  for (const event of events) {
    for (const endpoint of endpoints) {
      if (!endpointWants(endpoint, event)) continue;
      rows.push({
        endpointId: endpoint.id,
        key: event.key,
        type: event.type,
        payload: JSON.stringify(standardPayload(event)),
      });
    }
  }
  if (rows.length === 0) return 0;
  return tx.$executeRaw`
    INSERT INTO webhook_deliveries (endpoint_id, event_key, event_type, payload)
    SELECT * FROM unnest(${rows.map((r) => r.endpointId)}::uuid[], ${rows.map((r) => r.key)}::text[],
                         ${rows.map((r) => r.type)}::text[], ${rows.map((r) => r.payload)}::jsonb[])
    ON CONFLICT (endpoint_id, event_key) DO NOTHING`;
}
