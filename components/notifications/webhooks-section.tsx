"use client";

import { useQuery } from "@tanstack/react-query";
import { OneTimeSecret } from "@/components/admin/one-time-secret";
import { domainsOptions } from "@/components/admin/queries";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { ModalDialog } from "@/components/ui/modal-dialog";
import { ReasonForm } from "@/components/ui/reason-form";
import { Section } from "@/components/ui/section";
import { EmptyState, QueryState, StatusLine } from "@/components/ui/states";
import { Time } from "@/components/ui/time-zone";
import { useChangeDialog } from "@/components/ui/use-change-dialog";
import type { DeliveryView, WebhookView } from "@/lib/notifications";
import { DeliveriesTable } from "./deliveries-table";
import { webhooksOptions } from "./queries";
import { useWebhookChange } from "./use-webhook-change";
import { WebhookForm } from "./webhook-form";
import styles from "./webhooks.module.css";

type Dialog =
  | { type: "add" }
  | { type: "added"; url: string; secret: string }
  | { type: "change"; webhook: WebhookView }
  | { type: "disable" | "enable" | "remove"; webhook: WebhookView }
  | { type: "redeliver"; webhook: WebhookView; delivery: DeliveryView };

const EXPLAIN = {
  disable: "Nothing new is queued for it and nothing is sent; its pending deliveries wait until it is enabled.",
  enable: "Its waiting deliveries are sent, and new events are queued for it again.",
  remove: "It stops receiving anything, and its deliveries and their history go with it. This cannot be undone.",
} as const;

function titleOf(dialog: Dialog | null): string {
  switch (dialog?.type) {
    case "add":
      return "Add a webhook endpoint";
    case "added":
      return "Endpoint added";
    case "change":
      return `Change the endpoint ${dialog.webhook.url}`;
    case "disable":
    case "enable":
    case "remove":
      return `${dialog.type[0]!.toUpperCase()}${dialog.type.slice(1)} the endpoint ${dialog.webhook.url}`;
    case "redeliver":
      return `Send the ${dialog.delivery.eventType} delivery again`;
    default:
      return "";
  }
}

/** What an endpoint is sent, in a line. */
function describe(w: WebhookView): string {
  return [
    w.domain ? `Domain ${w.domain}` : "Every domain",
    w.format,
    w.events.join(", "),
    w.openAbove !== null ? `open above ${w.openAbove}` : null,
    w.oldestOpenAboveSeconds !== null ? `oldest open above ${w.oldestOpenAboveSeconds} s` : null,
  ]
    .filter(Boolean)
    .join(" · ");
}

/**
 * Outgoing webhooks (docs/decisions/0048-webhooks-in-the-console.md): add, change, disable,
 * enable and remove endpoints, send a test event, and see and resend each delivery. Answers of
 * endpoints are untrusted text: React renders them as text, never as markup.
 */
export function WebhooksSection() {
  const query = useQuery(webhooksOptions());
  const change = useWebhookChange();
  const { dialog, status, statusRef, open, show, close, done, say } = useChangeDialog<Dialog>();
  const webhooks = query.data?.webhooks ?? [];
  const domains = (useQuery(domainsOptions()).data?.domains ?? []).map((d) => d.name);

  async function sendTest(webhook: WebhookView) {
    try {
      await change.mutateAsync({ kind: "test", webhookId: webhook.id });
      say(`Test event queued for ${webhook.url}: its delivery shows below.`);
    } catch (error) {
      say(`The test event was not queued: ${(error as Error).message}`);
    }
  }

  return (
    <Section
      title="Endpoints"
      actions={
        <Button variant="primary" aria-haspopup="dialog" onClick={() => open({ type: "add" })}>
          Add an endpoint…
        </Button>
      }
    >
      <StatusLine ref={statusRef}>{status}</StatusLine>
      <QueryState
        query={query}
        loading="Loading endpoints…"
        errorTitle="Endpoints could not be loaded"
        isEmpty={webhooks.length === 0}
        empty={
          <EmptyState title="No endpoint yet">Add one to be told of new causes, thresholds and operations.</EmptyState>
        }
      >
        {webhooks.map((w) => (
          <section key={w.id} className={styles.endpoint} aria-labelledby={`webhook-${w.id}`}>
            <h3 id={`webhook-${w.id}`} className={styles.url}>
              {w.url}
            </h3>
            <p className={styles.meta}>
              {w.disabledAt ? (
                <>
                  <Badge tone="warning">disabled</Badge> since <Time iso={w.disabledAt} seconds={false} /> ·{" "}
                </>
              ) : null}
              {describe(w)}
            </p>
            <p className={styles.meta}>
              {w.deliveries.delivered} delivered, {w.deliveries.pending} pending, {w.deliveries.failed} failed · id{" "}
              <span className={styles.mono}>{w.id}</span>
            </p>
            <div className={styles.actions} role="group" aria-label={`Changes to ${w.url}`}>
              <Button size="sm" disabled={w.disabledAt !== null} onClick={() => void sendTest(w)}>
                Send a test event
              </Button>
              <Button size="sm" aria-haspopup="dialog" onClick={() => open({ type: "change", webhook: w })}>
                Change…
              </Button>
              <Button
                size="sm"
                aria-haspopup="dialog"
                onClick={() => open({ type: w.disabledAt ? "enable" : "disable", webhook: w })}
              >
                {w.disabledAt ? "Enable…" : "Disable…"}
              </Button>
              <Button size="sm" aria-haspopup="dialog" onClick={() => open({ type: "remove", webhook: w })}>
                Remove…
              </Button>
            </div>
            <DeliveriesTable
              webhook={w}
              onRedeliver={(delivery) => open({ type: "redeliver", webhook: w, delivery })}
            />
          </section>
        ))}
      </QueryState>
      <ModalDialog open={dialog !== null} title={titleOf(dialog)} onClose={close}>
        {dialog?.type === "added" ? (
          <OneTimeSecret
            title="Copy the signing secret now."
            label={`Signing secret of ${dialog.url}`}
            value={dialog.secret}
            note="It is shown only now. The receiver verifies each delivery's signature with it (Standard Webhooks)."
            onDone={() => done(`Endpoint ${dialog.url} added.`)}
          />
        ) : dialog?.type === "add" ? (
          <WebhookForm
            domains={domains}
            submitLabel="Add the endpoint"
            onSubmit={async (definition) => {
              const answer = await change.mutateAsync({ kind: "add", definition });
              show({ type: "added", url: answer.webhook!.url, secret: answer.secret! });
            }}
          />
        ) : dialog?.type === "change" ? (
          <WebhookForm
            webhook={dialog.webhook}
            domains={domains}
            submitLabel="Save the endpoint"
            onSubmit={async (definition) => {
              await change.mutateAsync({ kind: "change", webhookId: dialog.webhook.id, definition });
              done(`Endpoint ${definition.url} changed.`);
            }}
          />
        ) : dialog?.type === "redeliver" ? (
          <ReasonForm
            explanation={
              <p>
                {dialog.delivery.state === "failed"
                  ? "It gets one more attempt now"
                  : "Its next attempt is made now, not at the end of its backoff"}
                , under the same webhook-id ({dialog.delivery.id}), so a receiver that has it already recognises it.
              </p>
            }
            submitLabel="Send it again"
            onSubmit={async (reason) => {
              await change.mutateAsync({
                kind: "redeliver",
                webhookId: dialog.webhook.id,
                deliveryId: dialog.delivery.id,
                reason,
              });
              done(`The ${dialog.delivery.eventType} delivery is being sent again.`);
            }}
          />
        ) : dialog ? (
          <ReasonForm
            explanation={<p>{EXPLAIN[dialog.type]}</p>}
            submitLabel={`${dialog.type[0]!.toUpperCase()}${dialog.type.slice(1)}`}
            danger={dialog.type === "remove"}
            onSubmit={async (reason) => {
              await change.mutateAsync({ kind: dialog.type, webhookId: dialog.webhook.id, reason });
              done(`Endpoint ${dialog.webhook.url} ${dialog.type === "remove" ? "removed" : `${dialog.type}d`}.`);
            }}
          />
        ) : null}
      </ModalDialog>
    </Section>
  );
}
