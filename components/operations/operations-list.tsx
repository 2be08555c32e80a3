"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { ListFooter } from "@/components/ui/list";
import { Section } from "@/components/ui/section";
import { EmptyState, QueryState } from "@/components/ui/states";
import { DataTable } from "@/components/ui/table";
import { Time, ZonedHeading } from "@/components/ui/time-zone";
import { ACTION_LABEL, formatCount, isLive, LIVE_REFRESH_MS, outcomeOf, outcomeText } from "./model";
import { OperationStateBadge } from "./operation-badges";
import styles from "./operations.module.css";
import { OutcomeBar } from "./outcome-bar";
import { OPERATIONS_PAGE_SIZE, operationsListOptions } from "./queries";

/** Every bulk operation, newest first; live while one of those shown runs. */
export function OperationsList() {
  const query = useInfiniteQuery({
    ...operationsListOptions(),
    refetchInterval: (q) =>
      q.state.data?.pages.some((page) => page.items.some((op) => isLive(op.state))) ? LIVE_REFRESH_MS * 2 : false,
  });
  const operations = query.data?.pages.flatMap((page) => page.items) ?? [];
  return (
    <Section title="Operations" note="Newest first.">
      <QueryState
        query={query}
        loading="Loading the operations…"
        errorTitle="The operations could not be loaded"
        isEmpty={operations.length === 0}
        empty={
          <EmptyState
            title="No operations yet"
            action={
              <Link href="/reviews?view=groups" className="rc-nowrap">
                Choose records in the queue
              </Link>
            }
          >
            An operation takes one action on many records: tick records in the queue, act on its filter, or replay a
            cause from the grouped view.
          </EmptyState>
        }
      >
        <DataTable caption="Bulk operations, newest first. Each links to its page.">
          <thead>
            <tr>
              <th scope="col">Operation</th>
              <th scope="col">State</th>
              <th scope="col" className="rc-num">
                Records
              </th>
              <th scope="col">Progress</th>
              <th scope="col">Created by</th>
              <th scope="col">
                <ZonedHeading>Created</ZonedHeading>
              </th>
              <th scope="col">Reason</th>
            </tr>
          </thead>
          <tbody>
            {operations.map((op) => {
              const outcome = outcomeOf(op);
              return (
                <tr key={op.id}>
                  <td>
                    <Link href={`/operations/${encodeURIComponent(op.id)}`} prefetch={false}>
                      {ACTION_LABEL[op.action] ?? op.action} · <span className="rc-mono">{op.id.slice(0, 8)}</span>
                    </Link>
                  </td>
                  <td>
                    <OperationStateBadge state={op.state} outcome={outcome} />
                  </td>
                  <td className="rc-num">{formatCount(op.total)}</td>
                  <td className={styles.progressCell}>
                    <span className="rc-nowrap">{outcomeText(outcome)}</span>
                    <OutcomeBar total={op.total} outcome={outcome} mini />
                  </td>
                  <td>{op.createdBy}</td>
                  <td className="rc-mono rc-nowrap">
                    <time dateTime={op.createdAt}>
                      <Time iso={op.createdAt} seconds={false} withZone={false} />
                    </time>
                  </td>
                  <td>{op.reason}</td>
                </tr>
              );
            })}
          </tbody>
        </DataTable>
        <ListFooter query={query} loadLabel={`Load ${OPERATIONS_PAGE_SIZE} more`} end="End of the list." />
      </QueryState>
    </Section>
  );
}
