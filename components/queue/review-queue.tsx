"use client";

import { keepPreviousData, useInfiniteQuery, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useMemo, useRef, useState } from "react";
import { holdsPermission } from "@/lib/access/client";
import { approvalsOptions } from "@/components/approvals/queries";
import { allowedOperationActions } from "@/components/operations/model";
import { useViewerAuthority } from "@/components/operations/viewer-role";
import { Button } from "@/components/ui/button";
import { ListFooter, ListHeading } from "@/components/ui/list";
import { describeError } from "@/components/ui/states";
import { formatAge } from "@/components/ui/time";
import { useTimes } from "@/components/ui/time-zone";
import { useNow } from "@/components/ui/use-now";
import { useUrlParams } from "@/components/ui/use-url-params";
import { SaveViewActions } from "@/components/views/save-view-actions";
import { BulkBar } from "./bulk-bar";
import { CauseGroupsTable } from "./cause-groups";
import { type CauseGroup, ERROR_CLASS_NONE, type QueueItem } from "./model";
import {
  LIVE_REFRESH_MS,
  QUEUE_PAGE_SIZE,
  causeGroupsOptions,
  queueCountOptions,
  queueListOptions,
  queueStatsOptions,
} from "./queries";
import { QueueFilters } from "./queue-filters";
import { QueueShortcuts } from "./queue-shortcuts";
import { groupsStateOf, recordsState } from "./queue-states";
import { ALL_STATUSES, DEFAULT_STATUS, TEXT_FILTERS, readQueueState } from "./queue-params";
import { useHeldArrivals } from "./held-arrivals";
import { rememberList, useRememberedTicks } from "./list-memory";
import { ReviewTable } from "./review-table";
import { useShortcuts } from "./row-keys";
import type { RowSelection } from "./row-selection";
import { StatsBar } from "./stats-bar";
import styles from "./queue.module.css";

const numberFormat = new Intl.NumberFormat("en-US");

/**
 * The review queue: counts, filters, records (or groups by cause), live. All view state is in
 * the URL (see queue-params.ts); the first page of records arrives prefetched from the server.
 */
export function ReviewQueue({ initialNow }: { initialNow: number }) {
  const [params, setParams] = useUrlParams();
  const times = useTimes();
  const state = useMemo(() => readQueueState((key) => params.get(key)), [params]);
  const now = useNow(initialNow);
  const resultsRef = useRef<HTMLElement>(null);
  const role = useViewerAuthority();
  const bulkActions = role ? allowedOperationActions(role) : [];
  // Ticks belong to one set of filters, and survive opening a record and coming back.
  const filtersKey = JSON.stringify(state.filters);
  const [selected, setSelected] = useRememberedTicks(filtersKey);
  // The row last ticked or unticked by itself: a shift-click ticks the rows from it to the clicked one.
  const [anchor, setAnchor] = useState<string | null>(null);

  const list = useInfiniteQuery({
    ...queueListOptions(state.filters, state.sort),
    enabled: !state.grouped,
    refetchInterval: LIVE_REFRESH_MS,
    placeholderData: keepPreviousData,
  });
  const stats = useQuery({ ...queueStatsOptions(), refetchInterval: LIVE_REFRESH_MS });
  // The current filter's count: capped, with the exact number one click away (kept per filter).
  const [exactFor, setExactFor] = useState<string | null>(null);
  const countExact = exactFor === filtersKey;
  const count = useQuery({
    ...queueCountOptions(state.filters, countExact),
    enabled: !state.grouped,
    refetchInterval: LIVE_REFRESH_MS,
    placeholderData: keepPreviousData,
  });
  // Records a decision waits on for a second person: their rows say "approval pending".
  const approvals = useQuery(approvalsOptions("pending")).data?.approvals;
  const pendingApprovals = useMemo(
    () => new Set((approvals ?? []).flatMap((a) => (a.reviewId ? [a.reviewId] : []))),
    [approvals],
  );
  const groups = useQuery({
    ...causeGroupsOptions(state.filters),
    enabled: state.grouped,
    refetchInterval: LIVE_REFRESH_MS,
    placeholderData: keepPreviousData,
  });

  // One row per record even if a live refresh moved a record between two loaded pages.
  const loaded = useMemo(() => {
    if (!list.data) return undefined;
    const seen = new Set<string>();
    const rows: QueueItem[] = [];
    for (const page of list.data.pages) {
      for (const item of page.items) {
        if (!seen.has(item.id)) {
          seen.add(item.id);
          rows.push(item);
        }
      }
    }
    return rows;
  }, [list.data]);
  const arrivals = useHeldArrivals(`${filtersKey} ${state.sort ?? ""}`, loaded);
  const items = arrivals.shown;

  const selection: RowSelection | undefined =
    bulkActions.length > 0
      ? {
          selected,
          toggle: (ids, checked, range) => {
            const order = items?.map((i) => i.id) ?? [];
            const from = range && anchor ? order.indexOf(anchor) : -1;
            const to = ids.length === 1 ? order.indexOf(ids[0]!) : -1;
            const span = from >= 0 && to >= 0 ? order.slice(Math.min(from, to), Math.max(from, to) + 1) : ids;
            const next = new Set(selected);
            for (const id of span) {
              if (checked) next.add(id);
              else next.delete(id);
            }
            if (ids.length === 1) setAnchor(ids[0]!);
            setSelected(next);
          },
        }
      : undefined;

  // The record page's previous/next walk the rows this list shows, in its order.
  useEffect(() => {
    if (items)
      rememberList({ href: `${window.location.pathname}${window.location.search}`, ids: items.map((i) => i.id) });
  }, [items]);

  // "/" focuses the search, as in most consoles.
  useShortcuts({ "/": () => document.getElementById("queue-q")?.focus() });

  const filtered = Object.keys(state.filters).some((k) => k !== "status") || state.status !== DEFAULT_STATUS;
  const clearFilters = () => {
    const patch: Record<string, null> = { status: null, category: null, q: null };
    for (const key of TEXT_FILTERS) patch[key] = null;
    setParams(patch);
  };
  const selectGroup = (group: CauseGroup) => {
    setParams({
      kind: group.kind,
      reason: group.reason,
      errorClass: group.errorClass ?? ERROR_CLASS_NONE,
      view: null,
    });
    // Keyboard and screen-reader users land on the records the group selected.
    requestAnimationFrame(() => resultsRef.current?.focus());
  };

  const active = state.grouped ? groups : list;
  const refreshFailed = active.isError && active.data !== undefined;
  const live = active.isError ? "error" : active.isFetching || stats.isFetching ? "busy" : "idle";
  const openCount = stats.data?.byStatus.open;
  const oldest = stats.data?.oldestOpenAgeSeconds;
  // Replays waiting for a consumer to claim them (Sidekiq's Scheduled tab): one click to see them.
  const scheduled = stats.data?.byStatus["replay-scheduled"] ?? 0;

  const listState = recordsState({
    list,
    empty: items !== undefined && items.length === 0,
    filtered,
    showsAllStatuses: state.status === ALL_STATUSES,
    clearFilters,
    setParams,
  });
  const groupsState = groupsStateOf({ groups, setParams });

  return (
    <div className={styles.page}>
      <div className={styles.titleRow}>
        <h1 className={styles.title}>Review queue</h1>
        <p className={styles.summary}>
          {stats.data ? (
            <>
              <strong>{numberFormat.format(openCount ?? 0)}</strong> open
              {oldest !== null && oldest !== undefined ? (
                <>
                  {" "}
                  · oldest open <strong>{formatAge(oldest * 1000)}</strong>
                </>
              ) : null}{" "}
              {scheduled ? (
                <>
                  {" "}
                  ·{" "}
                  <Link href="/reviews?status=replay-scheduled">
                    {numberFormat.format(scheduled)} {scheduled === 1 ? "replay" : "replays"} scheduled
                  </Link>
                </>
              ) : null}{" "}
              · {numberFormat.format(stats.data.total)} records in total
            </>
          ) : (
            " "
          )}
        </p>
        <p className={styles.live}>
          <span
            aria-hidden="true"
            className={`${styles.liveDot} ${live === "busy" ? styles.liveDotBusy : ""} ${live === "error" ? styles.liveDotError : ""}`}
          />
          {live === "error"
            ? "Live refresh failed"
            : active.dataUpdatedAt
              ? `Live · updated ${times.clock(active.dataUpdatedAt)}`
              : "Live"}
        </p>
      </div>

      {/* Straight to the records, past the counts and the filters: one tab stop instead of 20 or so. */}
      <a
        className={`rc-skip-link ${styles.skipToRecords}`}
        href="#queue-results"
        onClick={(event) => {
          const link = document.querySelector<HTMLElement>("#queue-table a[data-row-link][tabindex='0']");
          if (!link) return;
          event.preventDefault();
          link.focus();
        }}
      >
        Skip to the records
      </a>

      <StatsBar
        stats={stats.data}
        category={state.filters.category}
        reason={state.filters.reason}
        failed={stats.isError}
        onRetry={() => void stats.refetch()}
        onCategory={(value) => setParams({ category: value })}
        onReason={(value) => setParams({ reason: value })}
      />

      <QueueFilters
        state={state}
        reasons={stats.data ? Object.keys(stats.data.byReason).sort() : []}
        setParams={setParams}
        canBeAssigned={role ? holdsPermission(role, "reviews.assign") : false}
      />
      {/* The filters and sort above, kept under a name (ADR 0047); the navigation's Views lists them. */}
      {role && holdsPermission(role, "views.own") ? <SaveViewActions /> : null}

      <section
        className={styles.results}
        aria-labelledby="queue-results-title"
        id="queue-results"
        tabIndex={-1}
        ref={resultsRef}
      >
        <ListHeading
          titleId="queue-results-title"
          title={state.grouped ? "Groups by cause" : "Records"}
          meta={
            state.grouped ? (
              groups.data ? (
                `${numberFormat.format(groups.data.groups.length)} groups${groups.data.truncated ? " (largest shown)" : ""}`
              ) : (
                ""
              )
            ) : items ? (
              <MatchCount
                count={count.data}
                shown={items.length}
                moreBelow={list.hasNextPage}
                onCountAll={() => setExactFor(filtersKey)}
              />
            ) : (
              ""
            )
          }
          alert={
            refreshFailed
              ? `${describeError(active.error).advice} Showing rows from ${times.clock(active.dataUpdatedAt)}.`
              : null
          }
        >
          <label className={styles.switchLabel}>
            <input
              type="checkbox"
              role="switch"
              checked={state.grouped}
              onChange={(event) => setParams({ view: event.target.checked ? "groups" : null })}
            />
            Grouped by cause
          </label>
          {!state.grouped && arrivals.held > 0 ? (
            // In the heading's line, which is there anyway: its coming does not move the rows.
            <Button variant="subtle" size="sm" onClick={arrivals.showHeld}>
              {arrivals.held === 1 ? "1 new record" : `${numberFormat.format(arrivals.held)} new records`} · show
            </Button>
          ) : null}
          {state.grouped ? null : <QueueShortcuts />}
        </ListHeading>

        {state.grouped ? (
          <CauseGroupsTable
            groups={groups.data?.groups}
            loading={groups.isPending && !groups.isError}
            stale={groups.isPlaceholderData}
            now={now}
            state={groupsState}
            onSelect={selectGroup}
            bulkAction={bulkActions.includes("replay") ? "replay" : bulkActions.includes("note") ? "note" : null}
          />
        ) : (
          <>
            {selection ? (
              <BulkBar
                actions={bulkActions}
                selectedIds={[...selected]}
                filters={state.filters}
                onClear={() => setSelected(new Set())}
              />
            ) : null}
            <ReviewTable
              items={items}
              loading={list.isPending && !list.isError}
              stale={list.isPlaceholderData}
              now={now}
              state={listState}
              selection={selection}
              sort={{ sort: state.sort, onSort: (sort) => setParams({ sort }) }}
              pendingApprovals={pendingApprovals}
            />
            <ListFooter
              query={list}
              loadLabel={`Load ${QUEUE_PAGE_SIZE} more`}
              end={items && items.length > 0 ? "End of the list." : undefined}
            />
          </>
        )}
      </section>
    </div>
  );
}

/**
 * "1,234 match · 50 shown, more below": the filter's count beside what is loaded. Past the API's
 * cap it says "more than 10,000" and offers the exact count, which can take a moment on a large
 * table.
 */
function MatchCount({
  count,
  shown,
  moreBelow,
  onCountAll,
}: {
  count: { count: number; more: boolean } | undefined;
  shown: number;
  moreBelow: boolean;
  onCountAll: () => void;
}) {
  const loaded = `${numberFormat.format(shown)} shown${moreBelow ? ", more below" : ""}`;
  if (!count) return <>{loaded}</>;
  return (
    <span data-testid="match-count">
      {count.more ? (
        <>
          more than {numberFormat.format(count.count)} match{" "}
          <Button size="sm" variant="subtle" onClick={onCountAll}>
            Count them all
          </Button>
        </>
      ) : (
        `${numberFormat.format(count.count)} ${count.count === 1 ? "matches" : "match"}`
      )}{" "}
      · {loaded}
    </span>
  );
}
