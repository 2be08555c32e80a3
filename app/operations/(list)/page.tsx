import { dehydrate, HydrationBoundary, noop, QueryClient } from "@tanstack/react-query";
import type { Metadata } from "next";
import Link from "next/link";
import { AutoReplaySettings } from "@/components/operations/auto-replay-settings";
import { allowedOperationActions } from "@/components/operations/model";
import { buttonClassName } from "@/components/ui/button";
import type { OperationsPage as OperationsListPage } from "@/components/operations/model";
import { OperationsList } from "@/components/operations/operations-list";
import styles from "@/components/operations/operations.module.css";
import { OPERATIONS_PAGE_SIZE, operationsListOptions } from "@/components/operations/queries";
import { requireUser } from "@/lib/auth";
import { listOperations } from "@/lib/operations";

export const metadata: Metadata = { title: "Operations · Review Console" };

/**
 * Bulk operations (docs/operations.md): the list, whose first page is read here so the first
 * paint has rows, and automatic replay of ready records.
 */
export default async function OperationsPage() {
  const user = await requireUser("operations.read", "/operations");
  const queryClient = new QueryClient();
  await queryClient
    .infiniteQuery({
      ...operationsListOptions(),
      queryFn: (): Promise<OperationsListPage> => listOperations({ limit: OPERATIONS_PAGE_SIZE }, user.grants),
    })
    .catch(noop);
  return (
    <div className={styles.page}>
      <div className={styles.titleRow}>
        <h1 className={styles.title}>Bulk operations</h1>
        {allowedOperationActions(user.grants).length > 0 ? (
          <Link className={buttonClassName("primary")} href="/operations/new">
            New operation
          </Link>
        ) : null}
      </div>
      <p className={styles.lead}>
        One action on many records, planned and stoppable: frozen selection, dry run, confirmation, then dispatched at a
        set rate with a canary and an auto-pause. To start one, choose records in the <Link href="/reviews">queue</Link>{" "}
        or a cause in the <Link href="/reviews?view=groups">grouped view</Link>.
      </p>
      <HydrationBoundary state={dehydrate(queryClient)}>
        <OperationsList />
      </HydrationBoundary>
      <AutoReplaySettings role={user.role} grants={user.grants} />
    </div>
  );
}
