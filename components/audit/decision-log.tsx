"use client";

import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import { useTimes } from "@/components/ui/time-zone";
import { useMemo } from "react";
import { Button, buttonClassName } from "@/components/ui/button";
import { ListFooter, ListHeading } from "@/components/ui/list";
import { EmptyState, ErrorState, describeError } from "@/components/ui/states";
import { useUrlParams } from "@/components/ui/use-url-params";
import { AuditFilterForm } from "./audit-filters";
import { AUDIT_FILTERS, readAuditFilters } from "./audit-params";
import { AuditTable } from "./audit-table";
import { ChainStatus } from "./chain-status";
import { AUDIT_PAGE_SIZE, auditExportHref, auditListOptions } from "./queries";
import styles from "./audit.module.css";

const numberFormat = new Intl.NumberFormat("en-US");

/**
 * The decision log: who did what to which record and why, newest first, with the hash chain's
 * verification and exports of exactly what the filters select. Filters live in the URL.
 */
export function DecisionLog({ actions = [] }: { actions?: string[] }) {
  const [params, setParams] = useUrlParams();
  const times = useTimes();
  const filters = useMemo(() => readAuditFilters((key) => params.get(key)), [params]);
  const list = useInfiniteQuery({ ...auditListOptions(filters), placeholderData: keepPreviousData });
  const entries = useMemo(() => list.data?.pages.flatMap((page) => page.items), [list.data]);
  const filtered = Object.keys(filters).length > 0;
  const clear = () => setParams(Object.fromEntries(AUDIT_FILTERS.map((key) => [key, null])));

  const state =
    list.isError && !list.data ? (
      <ErrorState
        title="The decision log could not be loaded"
        error={list.error}
        onRetry={() => void list.refetch()}
        retrying={list.isFetching}
        action={
          filtered ? (
            <Button variant="subtle" onClick={clear}>
              Clear filters
            </Button>
          ) : null
        }
      />
    ) : entries && entries.length === 0 ? (
      filtered ? (
        <EmptyState title="No entries match these filters" action={<Button onClick={clear}>Clear filters</Button>}>
          Actor and action match any part of the name, ignoring case; the effect key must match exactly; the time range
          is in {times.label}, From inclusive, To exclusive.
        </EmptyState>
      ) : (
        <EmptyState title="The decision log is empty">
          Every action on a record, every refused authorization and every user or token change is written here.
        </EmptyState>
      )
    ) : undefined;

  return (
    <div className={styles.page}>
      <div className={styles.titleRow}>
        <h1 className={styles.title}>Decision log</h1>
        <p className={styles.titleNote}>Append-only; each entry carries the hash of the one before.</p>
        <div className={styles.exports}>
          <a className={buttonClassName("default", "sm")} href={auditExportHref("ndjson", filters)} download>
            Export NDJSON
          </a>
          <a className={buttonClassName("default", "sm")} href={auditExportHref("csv", filters)} download>
            Export CSV
          </a>
        </div>
      </div>

      <ChainStatus />

      <AuditFilterForm filters={filters} setParams={setParams} actions={actions} />

      <section aria-labelledby="audit-results-title">
        <ListHeading
          titleId="audit-results-title"
          title="Entries"
          meta={entries ? `${numberFormat.format(entries.length)} shown${list.hasNextPage ? ", more below" : ""}` : ""}
          alert={list.isError && list.data ? `Refresh failed: ${describeError(list.error).advice}` : null}
        >
          <Button size="sm" variant="subtle" onClick={() => void list.refetch()} disabled={list.isFetching}>
            {list.isFetching && !list.isFetchingNextPage ? "Refreshing…" : "Refresh"}
          </Button>
        </ListHeading>
        <AuditTable
          entries={entries}
          loading={list.isPending && !list.isError}
          stale={list.isPlaceholderData}
          state={state}
        />
        <ListFooter
          query={list}
          loadLabel={`Load ${AUDIT_PAGE_SIZE} more`}
          end={entries && entries.length > 0 ? "End of the log." : undefined}
        />
      </section>
    </div>
  );
}
