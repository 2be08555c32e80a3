import type { Metadata } from "next";
import styles from "@/components/admin/admin.module.css";
import own from "@/components/notifications/webhooks.module.css";
import { requireUser } from "@/lib/auth/session";
import { listDeliveries, listWebhooks } from "@/lib/notifications/endpoints";

export const metadata: Metadata = { title: "Webhooks · Review Console" };

// Outgoing webhooks (docs/decisions/0032-notifications.md): every endpoint and its latest
// deliveries with each attempt. Read-only: endpoints are added and removed with
// `review-console webhook` or the API (the secret is shown once, there). Answers of endpoints
// are untrusted text: React renders them as text, never as markup.

const RECENT = 20;

export default async function WebhooksPage() {
  await requireUser("users.manage", "/admin/webhooks");
  const webhooks = await listWebhooks();
  const deliveries = await Promise.all(webhooks.map((w) => listDeliveries(w.id, { limit: RECENT })));
  return (
    <div className={styles.page}>
      <h1 className={styles.title}>Webhooks</h1>
      <p className={styles.lead}>
        Where notifications go. Add or remove an endpoint with <code>review-console webhook add|remove</code> or{" "}
        <code>POST /api/v1/webhooks</code>; each change goes to the decision log.
      </p>
      {webhooks.length === 0 ? <p>No endpoint yet.</p> : null}
      {webhooks.map((webhook, i) => (
        <section key={webhook.id} className={own.section} aria-labelledby={`webhook-${webhook.id}`}>
          <h2 id={`webhook-${webhook.id}`} className={own.mono}>
            {webhook.url}
          </h2>
          <p>
            {webhook.domain ? `Domain ${webhook.domain}` : "Every domain"} · {webhook.format} ·{" "}
            {webhook.events.join(", ")}
            {webhook.openAbove !== null ? ` · open above ${webhook.openAbove}` : ""}
            {webhook.oldestOpenAboveSeconds !== null ? ` · oldest open above ${webhook.oldestOpenAboveSeconds} s` : ""}
          </p>
          <p>
            {webhook.deliveries.delivered} delivered, {webhook.deliveries.pending} pending, {webhook.deliveries.failed}{" "}
            failed · id <span className={own.mono}>{webhook.id}</span>
          </p>
          <table className={own.table}>
            <caption>Latest {RECENT} deliveries</caption>
            <thead>
              <tr>
                <th scope="col">Delivery (webhook-id)</th>
                <th scope="col">Event</th>
                <th scope="col">State</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last answer</th>
              </tr>
            </thead>
            <tbody>
              {deliveries[i]!.map((d) => {
                const last = d.attemptLog.at(-1);
                return (
                  <tr key={d.id}>
                    <td className={own.mono}>{d.id}</td>
                    <td>{d.eventType}</td>
                    <td>{d.state}</td>
                    <td>{d.attempts}</td>
                    <td className={own.excerpt}>
                      {last ? `${last.status ?? last.error ?? "no answer"} in ${last.durationMs} ms` : "not tried yet"}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </section>
      ))}
    </div>
  );
}
