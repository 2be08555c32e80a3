import { dehydrate, HydrationBoundary, noop, QueryClient } from "@tanstack/react-query";
import type { Metadata } from "next";
import { fromPageParams, readAuditFilters } from "@/components/audit/audit-params";
import styles from "@/components/audit/audit.module.css";
import { CheckpointStatus } from "@/components/audit/checkpoint-status";
import { DecisionLog } from "@/components/audit/decision-log";
import type { AuditPage } from "@/components/audit/model";
import { AUDIT_PAGE_SIZE, auditListOptions } from "@/components/audit/queries";
import { latestStoredCheckpoint, distinctAuditValues, listDecisions, auditListQuerySchema } from "@/lib/audit";
import { requireUser } from "@/lib/auth";
import { log } from "@/lib/log";

export const metadata: Metadata = { title: "Decision log · Review Console" };

/**
 * The decision log (inside the shell of ./layout.tsx); its first page is read on the server so
 * the first paint has entries. Below it, the latest signed checkpoint, read on the server too.
 */
export default async function AuditPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  await requireUser("audit.read", "/audit");
  const filters = readAuditFilters(fromPageParams(await searchParams));
  const queryClient = new QueryClient();
  const query = auditListQuerySchema.safeParse({ ...filters, limit: String(AUDIT_PAGE_SIZE) });
  // The three reads are independent: one round trip's time, not three.
  const [, actions, checkpoint] = await Promise.all([
    // Filters the API would refuse are left to the browser, which shows the API's message.
    query.success
      ? queryClient
          .infiniteQuery({ ...auditListOptions(filters), queryFn: (): Promise<AuditPage> => listDecisions(query.data) })
          .catch(noop)
      : undefined,
    // The actions the log holds, for the Action filter's choices (a skip scan of its index, cached).
    distinctAuditValues("action").catch((error: unknown) => {
      log.error({ err: error }, "reading the decision log's actions failed");
      return [] as string[];
    }),
    // The page stays usable without it (e.g. a runtime role not yet granted the new table).
    latestStoredCheckpoint().catch((error: unknown) => {
      log.error({ err: error }, "reading the latest decision-log checkpoint failed");
      return "unavailable" as const;
    }),
  ]);
  return (
    <div className={styles.page}>
      <HydrationBoundary state={dehydrate(queryClient)}>
        <DecisionLog actions={actions} />
      </HydrationBoundary>
      <CheckpointStatus checkpoint={checkpoint} />
    </div>
  );
}
