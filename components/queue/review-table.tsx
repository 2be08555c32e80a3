"use client";

import { createColumnHelper, tableFeatures, useTable } from "@tanstack/react-table";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { createContext, type MouseEvent, type ReactNode, useContext, useRef, useState } from "react";
import { CategoryBadge, StatusBadge } from "@/components/ui/review-badges";
import { AssigneeBadge } from "./assignee-badge";
import { ReadyBadge } from "./ready-badge";
import { type RowSelection, SelectAllCell, SelectRowCell } from "./row-selection";
import { SkeletonRows } from "@/components/ui/skeleton";
import { DataTable, TableMessage } from "@/components/ui/table";
import { Age } from "@/components/ui/time-zone";
import type { ListSort, ListSortField, QueueItem } from "./model";
import { ariaSortOf, describeSort, SortHeader } from "./queue-sort";
import { useShortcuts } from "./row-keys";
import styles from "./queue.module.css";

interface QueueColumnMeta {
  /** Fixed width (table-layout: fixed), so rows never reflow when data refreshes. */
  width?: number;
  className?: string;
  /** The API order (`sort=`) this column's header sorts by. */
  sortField?: ListSortField;
}

interface QueueTableMeta {
  /** The row whose link is the table's tab stop (roving tabindex). */
  activeRow: number;
}

const features = tableFeatures({ columnMeta: {} as QueueColumnMeta, tableMeta: {} as QueueTableMeta });
const helper = createColumnHelper<typeof features, QueueItem>();

/** The clock the ages are measured against; one ticking value for the whole table. */
export const NowContext = createContext(0);

/** The records a decision waits on for approval (a cancel, a skip, a bulk request's are not per record). */
const NO_PENDING: ReadonlySet<string> = new Set();
const PendingApprovalsContext = createContext<ReadonlySet<string>>(NO_PENDING);

/**
 * The status, and "approval pending" while a decision on the record waits for a second person:
 * the record reads "open" in the database, but nobody else may decide on it meanwhile.
 */
function StatusCell({ id, status }: { id: string; status: string }) {
  const pending = useContext(PendingApprovalsContext).has(id);
  return (
    <span className={styles.twoLines}>
      <span className={styles.line}>
        <StatusBadge status={status} />
      </span>
      {pending ? <span className={`${styles.line} ${styles.lineMuted}`}>approval pending</span> : null}
    </span>
  );
}

function AgeCell({ since }: { since: string }) {
  return <Age since={since} now={useContext(NowContext)} />;
}

/** Text that may be cut by the column: the full value stays in the tooltip. */
function Clipped({ text, fallback = "—" }: { text: string | null; fallback?: string }) {
  if (text === null || text === "") return <span className="rc-muted">{fallback}</span>;
  return <span title={text}>{text}</span>;
}

/** Two short lines in one cell (e.g. message id over kind): each cut on its own, in full in the tooltip. */
function TwoLines({ first, second }: { first: ReactNode; second: ReactNode }) {
  return (
    <span className={styles.twoLines}>
      <span className={styles.line}>{first}</span>
      <span className={`${styles.line} ${styles.lineMuted}`}>{second}</span>
    </span>
  );
}

/** The cause: category, and the reason under it only when it says something else. */
function CauseCell({ item }: { item: QueueItem }) {
  const badges = (
    <>
      <CategoryBadge category={item.category} /> <ReadyBadge item={item} /> <AssigneeBadge item={item} />
    </>
  );
  if (item.reason === item.category) return <span className={styles.twoLines}>{badges}</span>;
  return <TwoLines first={badges} second={<Clipped text={item.reason} />} />;
}

/** The error class in bold, then the start of the last error (the server sends at most 300 characters). */
function ErrorCell({ item }: { item: QueueItem }) {
  if (!item.errorClass && !item.lastError) return <span className="rc-muted">—</span>;
  const rest =
    item.lastError && item.errorClass ? item.lastError.trimStart().slice(item.errorClass.length) : item.lastError;
  return (
    <span className={styles.errorText} title={item.lastError ?? undefined}>
      {item.errorClass ? <strong className={`${styles.errorClass} rc-mono`}>{item.errorClass}</strong> : null}
      {rest}
    </span>
  );
}

/** The props a row's sortable header needs: the list's order and how to change it. */
export interface TableSort {
  sort: ListSort | undefined;
  onSort: (sort: ListSort) => void;
}

const columns = helper.columns([
  helper.display({
    id: "cause",
    header: "Cause",
    cell: (info) => <CauseCell item={info.row.original} />,
    meta: { width: 156 },
  }),
  helper.accessor("messageId", {
    header: "Message · kind",
    // The row's link: a real anchor, one tab stop for the whole table (roving: the other rows'
    // links are reached with j/k), opens in a new tab with the usual keys.
    cell: (info) => (
      <TwoLines
        first={
          <Link
            href={`/reviews/${info.row.original.id}`}
            prefetch={false}
            className={`${styles.rowLink} rc-mono`}
            title={info.getValue() ?? `record ${info.row.original.id}`}
            data-row-link=""
            tabIndex={info.row.index === info.table.options.meta?.activeRow ? 0 : -1}
          >
            {info.getValue() ?? <em>no message id</em>}
          </Link>
        }
        second={<Clipped text={info.row.original.kind} />}
      />
    ),
    meta: { width: 172 },
  }),
  helper.display({
    id: "error",
    header: "Error",
    cell: (info) => <ErrorCell item={info.row.original} />,
    meta: { className: styles.wrapCell },
  }),
  helper.display({
    id: "keys",
    header: "Effect · sequence",
    cell: (info) => {
      const item = info.row.original;
      const sequence = item.sequenceKey === null ? null : `${item.sequenceKey}#${item.sequence ?? "?"}`;
      return <TwoLines first={<Clipped text={item.effectKey} />} second={<Clipped text={sequence} />} />;
    },
    meta: { width: 160, className: "rc-mono" },
  }),
  helper.accessor("requiredCheck", {
    header: "Required check",
    cell: (info) => (
      <span className={styles.clamp2} title={info.getValue()}>
        {info.getValue()}
      </span>
    ),
    meta: { width: 176, className: styles.wrapCell },
  }),
  helper.accessor("attempts", {
    header: "Attempts",
    cell: (info) => info.getValue(),
    meta: { width: 84, className: "rc-num", sortField: "attempts" },
  }),
  helper.accessor("firstSeenAt", {
    header: "Age",
    cell: (info) => <AgeCell since={info.getValue()} />,
    meta: { width: 64, className: "rc-num", sortField: "firstSeenAt" },
  }),
  helper.accessor("lastSeenAt", {
    header: "Last seen",
    cell: (info) => <AgeCell since={info.getValue()} />,
    meta: { width: 86, className: "rc-num", sortField: "lastSeenAt" },
  }),
  helper.accessor("status", {
    header: "Status",
    cell: (info) => <StatusCell id={info.row.original.id} status={info.getValue()} />,
    meta: { width: 118 },
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

/**
 * The records. Keyboard: the table is one tab stop (the current row's link, roving tabindex);
 * j/k move between rows, Enter opens one (its link), x ticks it for a bulk operation.
 */
export function ReviewTable({
  items,
  loading,
  stale,
  now,
  state,
  selection,
  sort,
  pendingApprovals = NO_PENDING,
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
  /** Sortable headers; without, the columns do not sort. */
  sort?: TableSort;
  /** The records a decision waits on for approval: their status reads "approval pending" too. */
  pendingApprovals?: ReadonlySet<string>;
}) {
  const rows = items ?? emptyRows;
  const [active, setActive] = useState(0);
  // A refresh or a new filter may leave fewer rows: the tab stop stays on a row that exists.
  const activeRow = Math.min(active, Math.max(rows.length - 1, 0));
  const table = useTable({ features, columns, data: rows, getRowId: (row) => row.id, meta: { activeRow } });
  const onRowClick = useRowClick();
  const bodyRef = useRef<HTMLTableSectionElement>(null);
  const columnCount = QUEUE_COLUMN_COUNT + (selection ? 1 : 0);
  const showingRows = !loading && !state;
  const pageIds = selection && showingRows ? rows.map((item) => item.id) : [];

  const rowLinks = () => [...(bodyRef.current?.querySelectorAll<HTMLAnchorElement>("a[data-row-link]") ?? [])];
  const focusRow = (index: number) => {
    const links = rowLinks();
    const target = links[Math.max(0, Math.min(index, links.length - 1))];
    if (!target) return;
    setActive(links.indexOf(target));
    target.focus();
    target.scrollIntoView?.({ block: "nearest" });
  };
  const focusedRow = () => {
    const row = document.activeElement?.closest("tr[data-row-index]");
    return row && bodyRef.current?.contains(row) ? Number(row.getAttribute("data-row-index")) : null;
  };
  // The first j or k from outside the table lands on the current row; then they move.
  useShortcuts({
    j: () => {
      if (!showingRows) return false;
      const at = focusedRow();
      focusRow(at === null ? activeRow : at + 1);
    },
    k: () => {
      if (!showingRows) return false;
      const at = focusedRow();
      focusRow(at === null ? activeRow : at - 1);
    },
    x: () => {
      const item = rows[focusedRow() ?? activeRow];
      if (!selection || !showingRows || !item) return false;
      selection.toggle([item.id], !selection.selected.has(item.id));
    },
  });

  return (
    <PendingApprovalsContext.Provider value={pendingApprovals}>
      <NowContext.Provider value={now}>
        {/* On a phone the rows become cards (queue.module.css): status, age and attempts on screen. */}
        <div className={styles.cards}>
          <DataTable
            caption={`Review records, ${describeSort(sort?.sort)}. Each row links to its record; j and k move between rows.`}
            layout="fixed"
            compact
            stale={stale}
            aria-busy={loading || stale}
            id="queue-table"
          >
            <colgroup>
              {selection ? <col style={{ width: 36 }} /> : null}
              {table.getAllLeafColumns().map((column) => (
                <col
                  key={column.id}
                  style={column.columnDef.meta?.width ? { width: column.columnDef.meta.width } : {}}
                />
              ))}
            </colgroup>
            <thead>
              {table.getHeaderGroups().map((group) => (
                <tr key={group.id}>
                  {selection ? <SelectAllCell selection={selection} ids={pageIds} /> : null}
                  {group.headers.map((header) => {
                    const meta = header.column.columnDef.meta;
                    const field = sort ? meta?.sortField : undefined;
                    return (
                      <th
                        key={header.id}
                        scope="col"
                        className={meta?.className}
                        data-col={header.column.id}
                        data-sortable={field ? "" : undefined}
                        aria-sort={field ? ariaSortOf(sort?.sort, field) : undefined}
                      >
                        {header.isPlaceholder ? null : field && sort ? (
                          <SortHeader
                            field={field}
                            label={String(header.column.columnDef.header)}
                            sort={sort.sort}
                            onSort={sort.onSort}
                          />
                        ) : (
                          <table.FlexRender header={header} />
                        )}
                      </th>
                    );
                  })}
                </tr>
              ))}
            </thead>
            <tbody ref={bodyRef}>
              {loading ? (
                <SkeletonRows columns={columnCount} rows={12} />
              ) : state ? (
                <TableMessage colSpan={columnCount}>{state}</TableMessage>
              ) : (
                table.getRowModel().rows.map((row) => (
                  <tr
                    key={row.id}
                    className={styles.row}
                    data-row-index={row.index}
                    onClick={(event) => onRowClick(event, row.original.id)}
                    onFocus={() => setActive(row.index)}
                    onKeyDown={(event) => {
                      // Enter on the row's checkbox opens the record too (the link opens itself).
                      if (event.key === "Enter" && (event.target as HTMLElement).tagName === "INPUT") {
                        event.preventDefault();
                        rowLinks()[row.index]?.click();
                      }
                    }}
                  >
                    {selection ? <SelectRowCell selection={selection} item={row.original} /> : null}
                    {row.getAllCells().map((cell) => (
                      <td
                        key={cell.id}
                        className={cell.column.columnDef.meta?.className}
                        data-col={cell.column.id}
                        data-label={String(cell.column.columnDef.header)}
                      >
                        <table.FlexRender cell={cell} />
                      </td>
                    ))}
                  </tr>
                ))
              )}
            </tbody>
          </DataTable>
        </div>
      </NowContext.Provider>
    </PendingApprovalsContext.Provider>
  );
}
