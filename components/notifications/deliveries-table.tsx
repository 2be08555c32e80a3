"use client";

import { useQuery } from "@tanstack/react-query";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { EmptyState, QueryState } from "@/components/ui/states";
import { DataTable } from "@/components/ui/table";
import { Time, useTimes } from "@/components/ui/time-zone";
import type { DeliveryView, WebhookView } from "@/lib/notifications";
import { deliveriesOptions, RECENT_DELIVERIES } from "./queries";
import styles from "./webhooks.module.css";

/**
 * What became of a delivery, in words a person reads at a glance: a dead endpoint's deliveries
 * say "retrying" with the next try's time, or "held" while the endpoint is disabled, never a bare
 * "pending".
 */
function DeliveryState({ delivery, disabled }: { delivery: DeliveryView; disabled: boolean }) {
  if (delivery.state === "delivered") return <Badge tone="success">delivered</Badge>;
  if (delivery.state === "failed") {
    return (
      <Badge tone="danger">{`failed after ${delivery.attempts} attempt${delivery.attempts === 1 ? "" : "s"}`}</Badge>
    );
  }
  if (disabled) return <Badge tone="warning">held: endpoint disabled</Badge>;
  if (delivery.attempts === 0) return <Badge tone="info">queued</Badge>;
  return (
    <>
      <Badge tone="warning">{`retrying: attempt ${delivery.attempts} failed`}</Badge>{" "}
      {delivery.nextAttemptAt ? (
        <span className="rc-nowrap">
          next <Time iso={delivery.nextAttemptAt} withZone={false} />
        </span>
      ) : null}
    </>
  );
}

function lastAnswer(delivery: DeliveryView): string {
  const last = delivery.attemptLog.at(-1);
  if (!last) return "not tried yet";
  return `${last.status ?? last.error ?? "no answer"} in ${last.durationMs} ms`;
}

/** An endpoint's newest deliveries with their attempts; a failed or retrying one can be sent again. */
export function DeliveriesTable({
  webhook,
  onRedeliver,
}: {
  webhook: WebhookView;
  onRedeliver: (delivery: DeliveryView) => void;
}) {
  const query = useQuery(deliveriesOptions(webhook.id));
  const times = useTimes();
  const deliveries = query.data?.deliveries ?? [];
  const disabled = webhook.disabledAt !== null;
  return (
    <QueryState
      query={query}
      loading="Loading deliveries…"
      errorTitle="Deliveries could not be loaded"
      isEmpty={deliveries.length === 0}
      empty={<EmptyState title="No delivery yet">Send a test event to see one arrive.</EmptyState>}
    >
      <DataTable caption={`Latest ${RECENT_DELIVERIES} deliveries to ${webhook.url}`}>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">State</th>
            <th scope="col">Last answer</th>
            <th scope="col">Created ({times.label})</th>
            <th scope="col">Delivery (webhook-id)</th>
            <th scope="col">Send again</th>
          </tr>
        </thead>
        <tbody>
          {deliveries.map((d) => (
            <tr key={d.id}>
              <td>{d.eventType}</td>
              <td>
                <DeliveryState delivery={d} disabled={disabled} />
              </td>
              <td className={styles.excerpt}>{lastAnswer(d)}</td>
              <td className="rc-mono rc-nowrap">
                <Time iso={d.createdAt} withZone={false} />
              </td>
              <td className={styles.mono}>{d.id}</td>
              <td>
                {d.state === "delivered" || disabled || (d.state === "pending" && d.attempts === 0) ? null : (
                  <Button
                    size="sm"
                    aria-haspopup="dialog"
                    aria-label={`Send the ${d.eventType} delivery ${d.id} again`}
                    onClick={() => onRedeliver(d)}
                  >
                    {d.state === "failed" ? "Redeliver…" : "Send now…"}
                  </Button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </DataTable>
    </QueryState>
  );
}
