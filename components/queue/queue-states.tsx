"use client";

import type { ReactNode } from "react";
import { Button } from "@/components/ui/button";
import type { ParamPatch } from "@/components/ui/use-url-params";
import { EmptyState, ErrorState } from "@/components/ui/states";
import { LIVE_REFRESH_MS } from "./queries";
import { ALL_STATUSES } from "./queue-params";

// What the queue shows in place of its rows: why there are none, or why they failed, each with
// the way out (clear the filters, widen the status, retry).

interface Loadable {
  isError: boolean;
  isFetching: boolean;
  error: unknown;
  data: unknown;
  refetch: () => unknown;
}

/** The records' message, or undefined when there are rows to show (or they are loading). */
export function recordsState({
  list,
  empty,
  filtered,
  showsAllStatuses,
  clearFilters,
  setParams,
}: {
  list: Loadable;
  /** Loaded, and no record matches. */
  empty: boolean;
  /** Any filter other than the default status is set. */
  filtered: boolean;
  showsAllStatuses: boolean;
  clearFilters: () => void;
  setParams: (patch: ParamPatch) => void;
}): ReactNode {
  if (list.isError && !list.data) {
    return (
      <ErrorState
        title="The records could not be loaded"
        error={list.error}
        onRetry={() => void list.refetch()}
        retrying={list.isFetching}
        action={
          filtered ? (
            <Button variant="subtle" onClick={clearFilters}>
              Clear filters
            </Button>
          ) : null
        }
      />
    );
  }
  if (!empty) return undefined;
  if (filtered) {
    return (
      <EmptyState
        title="No records match these filters"
        action={
          <>
            <Button onClick={clearFilters}>Clear filters</Button>
            {showsAllStatuses ? null : (
              <Button variant="subtle" onClick={() => setParams({ status: ALL_STATUSES })}>
                Include every status
              </Button>
            )}
          </>
        }
      >
        Widen the search or the status, or clear the filters to see the whole open queue.
      </EmptyState>
    );
  }
  return (
    <EmptyState
      title="No open records"
      action={
        <Button variant="subtle" onClick={() => setParams({ status: ALL_STATUSES })}>
          Show every status
        </Button>
      }
    >
      Every reported record has an outcome. New records appear here within {LIVE_REFRESH_MS / 1000} seconds of being
      reported.
    </EmptyState>
  );
}

/** The grouped view's message, or undefined when there are groups to show (or they are loading). */
export function groupsStateOf({
  groups,
  setParams,
}: {
  groups: Loadable & { data?: { groups: unknown[] } | undefined };
  setParams: (patch: ParamPatch) => void;
}): ReactNode {
  if (groups.isError && !groups.data) {
    return (
      <ErrorState
        title="The groups could not be loaded"
        error={groups.error}
        onRetry={() => void groups.refetch()}
        retrying={groups.isFetching}
        action={
          <Button variant="subtle" onClick={() => setParams({ view: null })}>
            Show records instead
          </Button>
        }
      />
    );
  }
  if (groups.data && groups.data.groups.length === 0) {
    return (
      <EmptyState title="No groups for these filters">
        No records with this status and category. Change the status filter to see others.
      </EmptyState>
    );
  }
  return undefined;
}
