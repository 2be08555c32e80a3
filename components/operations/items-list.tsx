"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { Button } from "@/components/ui/button";
import { EmptyState, QueryState } from "@/components/ui/states";
import type { OperationItemFilters } from "@/lib/client/query-keys";
import { ItemsTable } from "./items-table";
import { formatCount } from "./model";
import styles from "./operations.module.css";
import { ITEMS_PAGE_SIZE, operationItemsOptions } from "./queries";

/**
 * One filtered list of an operation's records (`items?state=` or `items?verdict=`), with "load
 * more" by the server's cursor. `live` refreshes the loaded pages while the operation runs.
 */
export function ItemsList({
  operationId,
  filters,
  caption,
  live,
}: {
  operationId: string;
  filters: OperationItemFilters;
  caption: string;
  live: number | false;
}) {
  const query = useInfiniteQuery({ ...operationItemsOptions(operationId, filters), refetchInterval: live });
  const items = query.data?.pages.flatMap((page) => page.items) ?? [];
  return (
    <QueryState
      query={query}
      loading="Loading the records…"
      errorTitle="The records could not be loaded"
      isEmpty={items.length === 0}
      empty={<EmptyState title="No records here" />}
    >
      <ItemsTable items={items} caption={caption} />
      <div className={styles.footer}>
        <span>{formatCount(items.length)} shown</span>
        {query.hasNextPage ? (
          <Button onClick={() => void query.fetchNextPage()} disabled={query.isFetchingNextPage}>
            {query.isFetchingNextPage ? "Loading…" : `Load ${ITEMS_PAGE_SIZE} more`}
          </Button>
        ) : (
          <span>End of the list.</span>
        )}
      </div>
    </QueryState>
  );
}
