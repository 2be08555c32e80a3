"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { ListFooter } from "@/components/ui/list";
import { EmptyState, QueryState } from "@/components/ui/states";
import type { OperationItemFilters } from "@/lib/client/query-keys";
import { ItemsTable } from "./items-table";
import { formatCount } from "./model";
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
      <ListFooter query={query} loadLabel={`Load ${ITEMS_PAGE_SIZE} more`} end="End of the list.">
        <span>{formatCount(items.length)} shown</span>
      </ListFooter>
    </QueryState>
  );
}
