import { stringify } from "csv-stringify/sync";
import { db } from "@/lib/db/client";
import { log } from "@/lib/log";
import { neutraliseFormula } from "./csv-cell";
import { AUDIT_COLUMNS, type AuditRow, auditWhere, resolveAuditTerms, toAuditEntry } from "./list";
import { AUDIT_ENTRY_FIELDS, type AuditExportFormat, type AuditFilter } from "./schema";

/** Rows per query: each chunk is one short query, so no connection or snapshot is held for long. */
export const EXPORT_CHUNK = 1000;

const CONTENT_TYPES: Record<AuditExportFormat, string> = {
  ndjson: "application/x-ndjson",
  csv: "text/csv; charset=utf-8",
};

function csvChunk(rows: AuditRow[], header: boolean): string {
  // A text cell as a spreadsheet must show it; `seq` stays a number (and is never a formula).
  const text = (value: string | null) => (value === null ? null : neutraliseFormula(value));
  return stringify(
    // In the order of AUDIT_ENTRY_FIELDS; `details` as jsonb's text, one cell any JSON parser reads.
    rows.map((row) => [
      Number(row.seq),
      text(row.at),
      text(row.actor),
      text(row.actorRole),
      text(row.action),
      text(row.reviewId),
      text(row.effectKey),
      text(row.reason),
      text(row.details),
      text(row.prevHash),
      text(row.hash),
    ]),
    {
      header,
      columns: [...AUDIT_ENTRY_FIELDS],
      record_delimiter: "windows",
      // With a record_delimiter set, csv-stringify quotes a cell only for that exact sequence
      // (CRLF): a bare LF or CR would then end the row early, and what follows it would start a
      // new row in the first column. Any cell with a CR or LF is quoted.
      quote_record_delimiter: true,
    },
  );
}

function ndjsonChunk(rows: AuditRow[]): string {
  return rows.map((row) => `${JSON.stringify(toAuditEntry(row))}\n`).join("");
}

/**
 * The matching entries in chain order (oldest first), so the file reads like the log it is.
 * Streamed: one chunk of EXPORT_CHUNK entries is fetched per pull, i.e. only when the client has
 * read the previous one. The export covers the log as it was when it started (entries up to the
 * last seq then): appends during a long download neither extend it forever nor make it ragged.
 */
export async function exportDecisions(filter: AuditFilter, format: AuditExportFormat): Promise<Response> {
  const [top] = await db().$queryRaw<{ last: bigint }[]>`
    SELECT coalesce(max(seq), 0)::bigint AS last FROM decision_log`;
  const upTo = top?.last ?? 0n;
  // The actor and action terms match as on the list (a value exactly, else a case-insensitive part).
  const terms = await resolveAuditTerms(filter);
  const encoder = new TextEncoder();
  let after = 0n;
  let first = true;

  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const rows = await db().$queryRaw<AuditRow[]>`
          SELECT ${AUDIT_COLUMNS} FROM decision_log
           WHERE ${auditWhere(filter, {}, terms)} AND seq > ${after} AND seq <= ${upTo}
           ORDER BY seq ASC LIMIT ${EXPORT_CHUNK}`;
        const text = format === "csv" ? csvChunk(rows, first) : ndjsonChunk(rows);
        first = false;
        if (text) controller.enqueue(encoder.encode(text));
        const last = rows[rows.length - 1];
        if (!last || rows.length < EXPORT_CHUNK) {
          controller.close();
        } else {
          after = last.seq;
        }
      } catch (error) {
        // The status line is gone by now: the client sees a broken download, not a short file.
        log.error({ err: error, format }, "decision log export failed");
        controller.error(error);
      }
    },
  });

  const date = new Date().toISOString().slice(0, 10);
  return new Response(body, {
    status: 200,
    headers: {
      "content-type": CONTENT_TYPES[format],
      "content-disposition": `attachment; filename="decision-log-${date}.${format}"`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });
}
