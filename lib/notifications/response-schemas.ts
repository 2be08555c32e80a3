import { z } from "zod";
import { DELIVERY_EVENT_TYPES, EVENT_TYPES, WEBHOOK_FORMATS } from "./events";

// The answers of /api/v1/webhooks, for the OpenAPI document (the definitions in app/api/v1/webhooks); the
// views the handlers and the console's page use are these schemas' types.

export const webhookSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    domain: z.string().nullable().meta({ description: "null: events of every domain (and of none)." }),
    events: z.array(z.enum(EVENT_TYPES)),
    format: z.enum(WEBHOOK_FORMATS),
    openAbove: z.number().int().nullable(),
    oldestOpenAboveSeconds: z.number().int().nullable(),
    createdBy: z.string(),
    createdAt: z.string(),
    disabledAt: z
      .string()
      .nullable()
      .meta({ description: "Since when it is disabled (nothing is queued or sent); null: enabled." }),
    deliveries: z.object({ pending: z.number().int(), delivered: z.number().int(), failed: z.number().int() }),
  })
  .meta({ id: "Webhook" });
export type WebhookView = z.infer<typeof webhookSchema>;

export const webhookListSchema = z.object({ webhooks: z.array(webhookSchema) });
export const webhookOneSchema = z.object({ webhook: webhookSchema });
export const webhookCreatedSchema = z.object({
  secret: z.string().meta({
    description: "The signing secret (`whsec_…`, Standard Webhooks), in this answer only; kept encrypted to sign.",
  }),
  webhook: webhookSchema,
});

const attemptSchema = z.object({
  attempt: z.number().int(),
  startedAt: z.string(),
  durationMs: z.number().int(),
  status: z.number().int().nullable().meta({ description: "The HTTP status; null when there was no answer." }),
  error: z
    .string()
    .nullable()
    .meta({ description: "Why there was no status: a timeout, a refused connection or a refused destination." }),
});

export const deliverySchema = z
  .object({
    id: z.string().meta({ description: "The `webhook-id` header, the same on every attempt." }),
    eventType: z.enum(DELIVERY_EVENT_TYPES),
    eventKey: z.string(),
    state: z.enum(["pending", "delivered", "failed"]),
    attempts: z.number().int(),
    nextAttemptAt: z
      .string()
      .nullable()
      .meta({ description: "When a pending delivery is tried next (held while the endpoint is disabled)." }),
    lastStatus: z.number().int().nullable(),
    deliveredAt: z.string().nullable(),
    createdAt: z.string(),
    attemptLog: z.array(attemptSchema),
  })
  .meta({ id: "WebhookDelivery" });
export type DeliveryView = z.infer<typeof deliverySchema>;

export const deliveryListSchema = z.object({ deliveries: z.array(deliverySchema) });
export const deliveryOneSchema = z.object({ delivery: deliverySchema });
