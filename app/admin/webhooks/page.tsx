import { dehydrate, HydrationBoundary, noop, QueryClient } from "@tanstack/react-query";
import type { Metadata } from "next";
import styles from "@/components/admin/admin.module.css";
import { domainsOptions } from "@/components/admin/queries";
import { deliveriesOptions, RECENT_DELIVERIES, webhooksOptions } from "@/components/notifications/queries";
import { WebhooksSection } from "@/components/notifications/webhooks-section";
import { requireUser } from "@/lib/auth";
import { listDomains } from "@/lib/domains";
import { listDeliveries, listWebhooks } from "@/lib/notifications";

export const metadata: Metadata = { title: "Webhooks · Review Console" };

/**
 * Outgoing webhooks (docs/decisions/0048-webhooks-in-the-console.md), read here so the first
 * paint has every endpoint and its latest deliveries.
 */
export default async function WebhooksPage() {
  await requireUser("users.manage", "/admin/webhooks");
  const queryClient = new QueryClient();
  const webhooks = await listWebhooks().catch(() => null);
  await Promise.all([
    webhooks && queryClient.prefetchQuery({ ...webhooksOptions(), queryFn: async () => ({ webhooks }) }),
    ...(webhooks ?? []).map((w) =>
      queryClient
        .prefetchQuery({
          ...deliveriesOptions(w.id),
          queryFn: async () => ({ deliveries: await listDeliveries(w.id, { limit: RECENT_DELIVERIES }) }),
        })
        .catch(noop),
    ),
    queryClient
      .prefetchQuery({ ...domainsOptions(), queryFn: async () => ({ domains: await listDomains() }) })
      .catch(noop),
  ]);
  return (
    <div className={styles.page}>
      <h1 className={styles.title}>Webhooks</h1>
      <p className={styles.lead}>
        Where notifications go: new causes, unknown effect results, thresholds, operations and approval requests. Every
        change here goes to the decision log with the reason you give; the log keeps an endpoint&apos;s scheme and host,
        never its path.
      </p>
      <HydrationBoundary state={dehydrate(queryClient)}>
        <WebhooksSection />
      </HydrationBoundary>
    </div>
  );
}
