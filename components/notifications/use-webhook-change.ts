"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { apiPost, apiPut } from "@/lib/client/api";
import { adminKeys } from "@/lib/client/query-keys";
import type { WebhookDefinition, DeliveryView, WebhookView } from "@/lib/notifications";

/** Every change the webhooks page makes, as the API takes it (docs/api-additions.md). */
export type WebhookChange =
  | { kind: "add"; definition: WebhookDefinition }
  | { kind: "change"; webhookId: string; definition: WebhookDefinition }
  | { kind: "disable" | "enable" | "remove"; webhookId: string; reason: string }
  | { kind: "test"; webhookId: string }
  | { kind: "redeliver"; webhookId: string; deliveryId: string; reason: string };

export interface WebhookAnswer {
  webhook?: WebhookView;
  /** Only when one was added: its signing secret, shown this once. */
  secret?: string;
  delivery?: DeliveryView;
}

function request(change: WebhookChange): Promise<WebhookAnswer> {
  if (change.kind === "add") return apiPost("/api/v1/webhooks", change.definition);
  const path = `/api/v1/webhooks/${encodeURIComponent(change.webhookId)}`;
  switch (change.kind) {
    case "change":
      return apiPut(path, change.definition);
    case "test":
      return apiPost(`${path}/test`, {});
    case "redeliver":
      return apiPost(`${path}/deliveries/${encodeURIComponent(change.deliveryId)}/redeliver`, {
        reason: change.reason,
      });
    default:
      return apiPost(`${path}/${change.kind}`, { reason: change.reason });
  }
}

/** Any change to an endpoint or a delivery; the endpoints and their deliveries are read again after it. */
export function useWebhookChange() {
  const queryClient = useQueryClient();
  return useMutation<WebhookAnswer, Error, WebhookChange>({
    mutationFn: request,
    onSettled: () => queryClient.invalidateQueries({ queryKey: adminKeys.webhooks() }),
  });
}
