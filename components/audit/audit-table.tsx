"use client";

import { createColumnHelper, tableFeatures, useTable } from "@tanstack/react-table";
import Link from "next/link";
import { Fragment, type ReactNode, useState } from "react";
import { Button } from "@/components/ui/button";
import { SkeletonRows } from "@/components/ui/skeleton";
import { DataTable, TableMessage } from "@/components/ui/table";
import { Time, ZonedHeading } from "@/components/ui/time-zone";
import type { AuditEntry } from "./model";
import styles from "./audit.module.css";

interface AuditColumnMeta {
  width?: number;
  className?: string;
}

const features = tableFeatures({ columnMeta: {} as AuditColumnMeta });
const helper = createColumnHelper<typeof features, AuditEntry>();

function Clipped({ text, className }: { text: string | null; className?: string }) {
  if (text === null || text === "") return <span className="rc-muted">—</span>;
  return (
    <span className={className} title={text}>
      {text}
    </span>
  );
}

const columns = helper.columns([
  helper.accessor("seq", {
    header: "Seq",
    cell: (info) => String(info.getValue()),
    meta: { width: 72, className: "rc-num" },
  }),
  helper.accessor("at", {
    header: () => <ZonedHeading>Time</ZonedHeading>,
    cell: (info) => <Time iso={info.getValue()} withZone={false} />,
    meta: { width: 166, className: "rc-mono" },
  }),
  helper.accessor("actor", {
    header: "Actor",
    cell: (info) => <Clipped text={info.getValue()} />,
    meta: { width: 180 },
  }),
  helper.accessor("actorRole", {
    header: "Role",
    cell: (info) => <Clipped text={info.getValue()} />,
    meta: { width: 88 },
  }),
  helper.accessor("action", {
    header: "Action",
    cell: (info) => <Clipped text={info.getValue()} className="rc-mono" />,
    // Wide enough for the longest actions (`operation.record-selected`, `review.replay-withdrawn`).
    meta: { width: 232 },
  }),
  helper.accessor("reviewId", {
    header: "Record",
    cell: (info) => {
      const id = info.getValue();
      if (!id) return <span className="rc-muted">—</span>;
      return (
        <Link href={`/reviews/${id}`} prefetch={false} className="rc-mono" title={`Open record ${id}`}>
          {id.slice(0, 8)}…
        </Link>
      );
    },
    meta: { width: 96 },
  }),
  helper.accessor("effectKey", {
    header: "Effect key",
    cell: (info) => <Clipped text={info.getValue()} className="rc-mono" />,
    meta: { width: 160 },
  }),
  helper.accessor("reason", {
    header: "Reason",
    cell: (info) => <Clipped text={info.getValue()} />,
    meta: {},
  }),
]);

const COLUMN_COUNT = columns.length + 1;
const emptyRows: AuditEntry[] = [];

/** Details as indented JSON text; never markup (React escapes it). */
function detailsText(details: unknown): string {
  if (details === null || details === undefined) return "(no details)";
  try {
    return JSON.stringify(details, null, 2);
  } catch {
    return String(details);
  }
}

export function AuditTable({
  entries,
  loading,
  stale,
  state,
}: {
  entries: AuditEntry[] | undefined;
  loading: boolean;
  stale: boolean;
  state?: ReactNode;
}) {
  const table = useTable({ features, columns, data: entries ?? emptyRows, getRowId: (row) => String(row.seq) });
  const [open, setOpen] = useState<ReadonlySet<string>>(() => new Set());
  const toggle = (id: string) =>
    setOpen((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  return (
    <DataTable caption="Decision-log entries, newest first." layout="fixed" stale={stale} aria-busy={loading || stale}>
      <colgroup>
        {table.getAllLeafColumns().map((column) => (
          <col key={column.id} style={column.columnDef.meta?.width ? { width: column.columnDef.meta.width } : {}} />
        ))}
        <col style={{ width: 92 }} />
      </colgroup>
      <thead>
        {table.getHeaderGroups().map((group) => (
          <tr key={group.id}>
            {group.headers.map((header) => (
              <th key={header.id} scope="col" className={header.column.columnDef.meta?.className}>
                {header.isPlaceholder ? null : <table.FlexRender header={header} />}
              </th>
            ))}
            <th scope="col">Details</th>
          </tr>
        ))}
      </thead>
      <tbody>
        {loading ? (
          <SkeletonRows columns={COLUMN_COUNT} rows={12} />
        ) : state ? (
          <TableMessage colSpan={COLUMN_COUNT}>{state}</TableMessage>
        ) : (
          table.getRowModel().rows.map((row) => {
            const expanded = open.has(row.id);
            const detailsId = `audit-details-${row.id}`;
            return (
              <Fragment key={row.id}>
                <tr className={expanded ? styles.expanded : undefined}>
                  {row.getAllCells().map((cell) => (
                    <td key={cell.id} className={cell.column.columnDef.meta?.className}>
                      <table.FlexRender cell={cell} />
                    </td>
                  ))}
                  <td>
                    <Button
                      size="sm"
                      variant="subtle"
                      aria-expanded={expanded}
                      aria-controls={expanded ? detailsId : undefined}
                      aria-label={`${expanded ? "Hide" : "Show"} details of entry ${row.id}`}
                      onClick={() => toggle(row.id)}
                    >
                      {expanded ? "Hide" : "Show"}
                    </Button>
                  </td>
                </tr>
                {expanded ? (
                  <tr className={styles.detailsRow} id={detailsId}>
                    <td colSpan={COLUMN_COUNT}>
                      <div className={styles.details}>
                        <div>
                          <p className={styles.detailsLabel}>Details of entry {row.id}</p>
                          <pre className={styles.pre}>{detailsText(row.original.details)}</pre>
                        </div>
                        <dl className={styles.hashes}>
                          <dt>Time</dt>
                          <dd>{row.original.at}</dd>
                          <dt>Hash</dt>
                          <dd>{row.original.hash}</dd>
                          <dt>Previous hash</dt>
                          <dd>{row.original.prevHash}</dd>
                        </dl>
                      </div>
                    </td>
                  </tr>
                ) : null}
              </Fragment>
            );
          })
        )}
      </tbody>
    </DataTable>
  );
}
