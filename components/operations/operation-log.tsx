"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { ListFooter } from "@/components/ui/list";
import { Section } from "@/components/ui/section";
import { EmptyState, QueryState } from "@/components/ui/states";
import { DataTable } from "@/components/ui/table";
import { Time, ZonedHeading } from "@/components/ui/time-zone";
import styles from "./operations.module.css";
import { operationLogOptions } from "./queries";

/** The operation's decision-log entries (`details.operationId`), newest first as the API answers them. */
export function OperationLog({ operationId, live }: { operationId: string; live: number | false }) {
  const query = useInfiniteQuery({ ...operationLogOptions(operationId), refetchInterval: live });
  const entries = query.data?.pages.flatMap((page) => page.items) ?? [];
  return (
    <Section title="Decision log" note="Every entry about this operation, newest first.">
      <QueryState
        query={query}
        loading="Loading the entries…"
        errorTitle="The entries could not be loaded"
        isEmpty={entries.length === 0}
        empty={<EmptyState title="No entries yet" />}
      >
        <DataTable caption="Decision-log entries of this operation, newest first.">
          <thead>
            <tr>
              <th scope="col" className="rc-num">
                Seq
              </th>
              <th scope="col">
                <ZonedHeading>Time</ZonedHeading>
              </th>
              <th scope="col">Actor</th>
              <th scope="col">Action</th>
              <th scope="col">Record</th>
              <th scope="col">Reason</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={String(entry.seq)}>
                <td className="rc-num">{String(entry.seq)}</td>
                <td className="rc-mono rc-nowrap">
                  <Time iso={entry.at} withZone={false} />
                </td>
                <td>{entry.actor}</td>
                <td className="rc-mono">{entry.action}</td>
                <td className="rc-nowrap">
                  {entry.reviewId ? (
                    <Link href={`/reviews/${encodeURIComponent(entry.reviewId)}`} prefetch={false} className="rc-mono">
                      {entry.reviewId.slice(0, 8)}…
                    </Link>
                  ) : (
                    <span className="rc-muted">—</span>
                  )}
                </td>
                <td className={styles.reasonText}>{entry.reason ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </DataTable>
        {query.hasNextPage ? <ListFooter query={query} loadLabel="Load more entries" /> : null}
      </QueryState>
    </Section>
  );
}
