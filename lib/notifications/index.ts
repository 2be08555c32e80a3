// lib/notifications: Outgoing webhooks: endpoints, the events queued from the decision log, the
// notifier that delivers them, deliveries and thresholds. Its face (docs/decisions/0049-modules-in-
// order.md): what other code may import of it, with the browser-safe part from ./client.ts.

export * from "./client";
export { listDeliveries, redeliver, sendTestEvent } from "./deliveries";
export {
  deliveriesQuerySchema,
  type WebhookDefinition,
  webhookDefinitionSchema,
  webhookReasonSchema,
} from "./endpoint-schema";
export {
  addWebhook,
  changeWebhook,
  existingWebhook,
  listWebhooks,
  removeWebhook,
  setWebhookEnabled,
} from "./endpoints";
export { processLogBatch } from "./log-events";
export { DEFAULT_NOTIFIER_OPTIONS, type NotifierOptions, runNotifier } from "./notifier";
export { type DeliveryView, type WebhookView } from "./response-schemas";
export * as responseSchemas from "./response-schemas";
export { checkThresholds } from "./thresholds";
