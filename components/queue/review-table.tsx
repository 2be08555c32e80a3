"use client";

import { createColumnHelper, tableFeatures, useTable } from "@tanstack/react-table";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { createContext, type MouseEvent, type ReactNode, useContext } from "react";
import { CategoryBadge, StatusBadge } from "@/components/ui/review-badges";
import { AssigneeBadge } from "./assignee-badge";
import { ReadyBadge } from "./ready-badge";
import { type RowSelection, SelectAllCell, SelectRowCell } from "./row-selection";
import { SkeletonRows } from "@/components/ui/skeleton";
import { DataTable, TableMessage } from "@/components/ui/table";
import { Age } from "@/components/ui/time";
import type { QueueItem } from "./model";
import styles from "./queue.module.css";

interface QueueColumnMeta {
  /** Fixed width (table-layout: fixed), so rows never reflow when data refreshes. */
  width?: number;
  className?: string;
}

const features = tableFeatures({ columnMeta: {} as QueueColumnMeta });
const helper = createColumnHelper<typeof features, QueueItem>();

/** The clock the ages are measured against; one ticking value for the whole table. */
export const NowContext = createContext(0);

function AgeCell({ since }: { since: string }) {
  return <Age since={since} now={useContext(NowContext)} />;
}

/** Text that may be cut by the column: the full value stays in the tooltip. */
function Clipped({ text, fallback = "—" }: { text: string | null; fallback?: string }) {
  if (text === null || text === "") return <span className="rc-muted">{fallback}</span>;
  return <span title={text}>{text}</span>;
}

const columns = helper.columns([
  helper.accessor("category", {
    header: "Category",
    cell: (info) => (
      <>
        <CategoryBadge category={info.getValue()} /> <ReadyBadge item={info.row.original} />{" "}
        <AssigneeBadge item={info.row.original} />
      </>
    ),
    meta: { width: 164 },
  }),
  helper.accessor("reason", {
    header: "Reason",
    cell: (info) => <Clipped text={info.getValue()} />,
    meta: { width: 128 },
  }),
  helper.accessor("kind", {
    header: "Kind",
    cell: (info) => <Clipped text={info.getValue()} />,
    meta: { width: 112 },
  }),
  helper.accessor("messageId", {
    header: "Message id",
    // The row's link: a real anchor, one tab stop per row, opens in a new tab with the usual keys.
    cell: (info) => (
      <Link
        href={`/reviews/${info.row.original.id}`}
        prefetch={false}
        className={styles.rowLink}
        title={info.getValue() ?? `record ${info.row.original.id}`}
      >
        {info.getValue() ?? <em>no message id</em>}
      </Link>
    ),
    meta: { width: 128, className: "rc-mono" },
  }),
  helper.accessor("effectKey", {
    header: "Effect key",
    cell: (info) => <Clipped text={info.getValue()} />,
    meta: { width: 136, className: "rc-mono" },
  }),
  helper.accessor((row) => (row.sequenceKey === null ? null : `${row.sequenceKey}#${row.sequence ?? "?"}`), {
    id: "sequence",
    header: "Sequence",
    cell: (info) => <Clipped text={info.getValue()} />,
    meta: { width: 116, className: "rc-mono" },
  }),
  helper.accessor("attempts", {
    header: "Attempts",
    cell: (info) => info.getValue(),
    meta: { width: 80, className: "rc-num" },
  }),
  helper.accessor("firstSeenAt", {
    header: "Age",
    cell: (info) => <AgeCell since={info.getValue()} />,
    meta: { width: 64, className: "rc-num" },
  }),
  helper.accessor("requiredCheck", {
    header: "Required check",
    cell: (info) => <Clipped text={info.getValue()} />,
    meta: {},
  }),
  helper.accessor("status", {
    header: "Status",
    cell: (info) => <StatusBadge status={info.getValue()} />,
    meta: { width: 124 },
  }),
]);

export const QUEUE_COLUMN_COUNT = columns.length;

const emptyRows: QueueItem[] = [];

/** Clicks anywhere on a row open the record, unless the user is selecting text or used a control. */
function useRowClick() {
  const router = useRouter();
  return (event: MouseEvent<HTMLTableRowElement>, id: string) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    if ((event.target as HTMLElement).closest("a, button, input, select, textarea")) return;
    if (window.getSelection()?.toString()) return;
    router.push(`/reviews/${id}`);
  };
}

export function ReviewTable({
  items,
  loading,
  stale,
  now,
  state,
  selection,
}: {
  items: QueueItem[] | undefined;
  /** No data yet: show placeholder rows. */
  loading: boolean;
  /** Showing the previous filters' rows while the new ones load. */
  stale: boolean;
  now: number;
  /** An empty or error message, shown in place of the rows. */
  state?: ReactNode;
  /** Checkboxes for bulk operations, for roles that may start one. */
  selection?: RowSelection;
}) {
  const table = useTable({ features, columns, data: items ?? emptyRows, getRowId: (row) => row.id });
  const onRowClick = useRowClick();
  const columnCount = QUEUE_COLUMN_COUNT + (selection ? 1 : 0);
  const pageIds = selection && !loading && !state ? (items ?? emptyRows).map((item) => item.id) : [];
  return (
    <NowContext.Provider value={now}>
      <DataTable
        caption="Review records, newest first. Each row links to its record."
        layout="fixed"
        compact
        stale={stale}
        aria-busy={loading || stale}
      >
        <colgroup>
          {selection ? <col style={{ width: 36 }} /> : null}
          {table.getAllLeafColumns().map((column) => (
            <col key={column.id} style={column.columnDef.meta?.width ? { width: column.columnDef.meta.width } : {}} />
          ))}
        </colgroup>
        <thead>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {selection ? <SelectAllCell selection={selection} ids={pageIds} /> : null}
              {group.headers.map((header) => (
                <th key={header.id} scope="col" className={header.column.columnDef.meta?.className}>
                  {header.isPlaceholder ? null : <table.FlexRender header={header} />}
                </th>
              ))}
            </tr>
          ))}
        </thead>
        <tbody>
          {loading ? (
            <SkeletonRows columns={columnCount} rows={12} />
          ) : state ? (
            <TableMessage colSpan={columnCount}>{state}</TableMessage>
          ) : (
            table.getRowModel().rows.map((row) => (
              <tr key={row.id} className={styles.row} onClick={(event) => onRowClick(event, row.original.id)}>
                {selection ? <SelectRowCell selection={selection} item={row.original} /> : null}
                {row.getAllCells().map((cell) => (
                  <td key={cell.id} className={cell.column.columnDef.meta?.className}>
                    <table.FlexRender cell={cell} />
                  </td>
                ))}
              </tr>
            ))
          )}
        </tbody>
      </DataTable>
    </NowContext.Provider>
  );
}
