import { queryOptions } from "@tanstack/react-query";
import { apiGet } from "@/lib/client/api";
import { adminKeys } from "@/lib/client/query-keys";
import type { DeliveryView, WebhookView } from "@/lib/notifications";

// Query definitions of the webhooks page (docs/decisions/0048-webhooks-in-the-console.md).

/** Deliveries shown per endpoint: the newest. */
export const RECENT_DELIVERIES = 20;

export function webhooksOptions() {
  return queryOptions({
    queryKey: adminKeys.webhooks(),
    queryFn: ({ signal }) => apiGet<{ webhooks: WebhookView[] }>("/api/v1/webhooks", signal),
    refetchInterval: 10_000,
  });
}

/** Read again every few seconds while one is pending, so a test event is seen arriving. */
export function deliveriesOptions(webhookId: string) {
  return queryOptions({
    queryKey: adminKeys.deliveries(webhookId),
    queryFn: ({ signal }) =>
      apiGet<{ deliveries: DeliveryView[] }>(
        `/api/v1/webhooks/${encodeURIComponent(webhookId)}/deliveries?limit=${RECENT_DELIVERIES}`,
        signal,
      ),
    refetchInterval: (query) => (query.state.data?.deliveries.some((d) => d.state === "pending") ? 2_000 : 15_000),
  });
}
