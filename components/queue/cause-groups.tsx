"use client";

import { Button } from "@/components/ui/button";
import { SkeletonRows } from "@/components/ui/skeleton";
import { Age } from "@/components/ui/time";
import type { ReactNode } from "react";
import { type CauseGroup, ERROR_CLASS_NONE } from "./model";
import styles from "./queue.module.css";

const numberFormat = new Intl.NumberFormat("en-US");
const COLUMNS = 7;

function groupName(group: CauseGroup): string {
  return `${group.kind ?? "no kind"} / ${group.reason} / ${group.errorClass ?? "no error class"}`;
}

/**
 * The queue grouped by cause (kind + reason + error class), largest first. "Select group"
 * filters the records to that group.
 */
export function CauseGroupsTable({
  groups,
  loading,
  stale,
  now,
  state,
  onSelect,
}: {
  groups: CauseGroup[] | undefined;
  loading: boolean;
  stale: boolean;
  now: number;
  state?: ReactNode;
  onSelect: (group: CauseGroup) => void;
}) {
  return (
    <div className={styles.tableWrap}>
      <table className={`${styles.table} ${stale ? styles.stale : ""}`} aria-busy={loading || stale}>
        <caption className="rc-visually-hidden">Records grouped by cause: kind, reason and error class.</caption>
        <colgroup>
          <col style={{ width: 200 }} />
          <col style={{ width: 200 }} />
          <col />
          <col style={{ width: 96 }} />
          <col style={{ width: 140 }} />
          <col style={{ width: 140 }} />
          <col style={{ width: 132 }} />
        </colgroup>
        <thead>
          <tr>
            <th scope="col">Kind</th>
            <th scope="col">Reason</th>
            <th scope="col">Error class</th>
            <th scope="col" className={styles.num}>
              Records
            </th>
            <th scope="col" className={styles.num}>
              Oldest first seen
            </th>
            <th scope="col" className={styles.num}>
              Newest last seen
            </th>
            <th scope="col">
              <span className="rc-visually-hidden">Action</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {loading ? (
            <SkeletonRows columns={COLUMNS} rows={8} />
          ) : state ? (
            <tr>
              <td colSpan={COLUMNS} className={styles.stateCell}>
                {state}
              </td>
            </tr>
          ) : (
            (groups ?? []).map((group) => (
              <tr key={`${group.kind}\u0000${group.reason}\u0000${group.errorClass}`}>
                <td title={group.kind ?? undefined}>{group.kind ?? <span className={styles.muted}>no kind</span>}</td>
                <td title={group.reason}>{group.reason}</td>
                <td className={styles.mono} title={group.errorClass ?? undefined}>
                  {group.errorClass ?? <span className={styles.muted}>{ERROR_CLASS_NONE}</span>}
                </td>
                <td className={styles.num}>{numberFormat.format(group.count)}</td>
                <td className={styles.num}>
                  <Age since={group.oldestFirstSeenAt} now={now} />
                </td>
                <td className={styles.num}>
                  <Age since={group.newestLastSeenAt} now={now} />
                </td>
                <td>
                  <Button size="sm" onClick={() => onSelect(group)} aria-label={`Select group ${groupName(group)}`}>
                    Select group
                  </Button>
                </td>
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}
