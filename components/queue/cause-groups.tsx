"use client";

import Link from "next/link";
import { ACTION_LABEL } from "@/components/operations/model";
import { newOperationHref } from "@/components/operations/selection-params";
import { Button, buttonClassName } from "@/components/ui/button";
import type { OperationAction } from "@/lib/operations/client";
import { SkeletonRows } from "@/components/ui/skeleton";
import { DataTable, TableMessage } from "@/components/ui/table";
import { Age } from "@/components/ui/time-zone";
import type { ReactNode } from "react";
import { type CauseGroup, ERROR_CLASS_NONE } from "./model";

const numberFormat = new Intl.NumberFormat("en-US");
const COLUMNS = 7;

function groupName(group: CauseGroup): string {
  return `${group.kind ?? "no kind"} / ${group.reason} / ${group.errorClass ?? "no error class"}`;
}

/**
 * The queue grouped by cause (kind + reason + error class), largest first. "Select group"
 * filters the records to that group; "Replay this cause…" (for roles that may) opens the
 * new-operation form on the cause's records that await an outcome.
 */
export function CauseGroupsTable({
  groups,
  loading,
  stale,
  now,
  state,
  onSelect,
  bulkAction = null,
}: {
  groups: CauseGroup[] | undefined;
  loading: boolean;
  stale: boolean;
  now: number;
  state?: ReactNode;
  onSelect: (group: CauseGroup) => void;
  /** The bulk action this role may start on a cause, if any. */
  bulkAction?: OperationAction | null;
}) {
  const columns = COLUMNS + (bulkAction ? 1 : 0);
  return (
    <DataTable
      caption="Records grouped by cause: kind, reason and error class."
      layout="fixed"
      compact
      stale={stale}
      aria-busy={loading || stale}
    >
      {/* Records first: on a phone the frame shows its first columns, and the count is what a group is for. */}
      <colgroup>
        <col style={{ width: 96 }} />
        <col style={{ width: 200 }} />
        <col style={{ width: 200 }} />
        <col />
        <col style={{ width: 140 }} />
        <col style={{ width: 140 }} />
        <col style={{ width: 132 }} />
        {bulkAction ? <col style={{ width: 168 }} /> : null}
      </colgroup>
      <thead>
        <tr>
          <th scope="col" className="rc-num">
            Records
          </th>
          <th scope="col">Kind</th>
          <th scope="col">Reason</th>
          <th scope="col">Error class</th>
          <th scope="col" className="rc-num">
            Oldest first seen
          </th>
          <th scope="col" className="rc-num">
            Newest last seen
          </th>
          <th scope="col">
            <span className="rc-visually-hidden">Action</span>
          </th>
          {bulkAction ? (
            <th scope="col">
              <span className="rc-visually-hidden">Bulk operation</span>
            </th>
          ) : null}
        </tr>
      </thead>
      <tbody>
        {loading ? (
          <SkeletonRows columns={columns} rows={8} />
        ) : state ? (
          <TableMessage colSpan={columns}>{state}</TableMessage>
        ) : (
          (groups ?? []).map((group) => (
            <tr key={`${group.kind}\u0000${group.reason}\u0000${group.errorClass}`}>
              <td className="rc-num">{numberFormat.format(group.count)}</td>
              <td title={group.kind ?? undefined}>{group.kind ?? <span className="rc-muted">no kind</span>}</td>
              <td title={group.reason}>{group.reason}</td>
              <td className="rc-mono" title={group.errorClass ?? undefined}>
                {group.errorClass ?? <span className="rc-muted">{ERROR_CLASS_NONE}</span>}
              </td>
              <td className="rc-num">
                <Age since={group.oldestFirstSeenAt} now={now} />
              </td>
              <td className="rc-num">
                <Age since={group.newestLastSeenAt} now={now} />
              </td>
              <td>
                <Button size="sm" onClick={() => onSelect(group)} aria-label={`Select group ${groupName(group)}`}>
                  Select group
                </Button>
              </td>
              {bulkAction ? (
                <td>
                  {bulkAction === "replay" && (group.replayable ?? group.count) === 0 ? (
                    // The replay's own rule counted none of these records: offering it would
                    // lead to a dry run of "not eligible" and an operation that does nothing.
                    <span
                      className="rc-muted"
                      title="A replay fits no record of this cause now (open, not effect-result-unknown)."
                    >
                      Replay does not fit
                    </span>
                  ) : (
                    <Link
                      className={buttonClassName("default", "sm")}
                      href={newOperationHref(bulkAction, {
                        type: "group",
                        group: { kind: group.kind, reason: group.reason, errorClass: group.errorClass },
                      })}
                      aria-label={`${ACTION_LABEL[bulkAction]} this cause: ${groupName(group)}`}
                    >
                      {ACTION_LABEL[bulkAction]} this cause…
                    </Link>
                  )}
                </td>
              ) : null}
            </tr>
          ))
        )}
      </tbody>
    </DataTable>
  );
}
