import { stringify } from "csv-stringify/sync";
import { db } from "@/lib/db/client";
import { log } from "@/lib/log";
import { AUDIT_COLUMNS, type AuditRow, auditWhere, toAuditEntry } from "./list";
import { AUDIT_ENTRY_FIELDS, type AuditExportFormat, type AuditFilter } from "./schema";

/** Rows per query: each chunk is one short query, so no connection or snapshot is held for long. */
export const EXPORT_CHUNK = 1000;

const CONTENT_TYPES: Record<AuditExportFormat, string> = {
  ndjson: "application/x-ndjson",
  csv: "text/csv; charset=utf-8",
};

function csvChunk(rows: AuditRow[], header: boolean): string {
  return stringify(
    // In the order of AUDIT_ENTRY_FIELDS; `details` as jsonb's text, one cell any JSON parser reads.
    rows.map((row) => [
      Number(row.seq),
      row.at,
      row.actor,
      row.actor_role,
      row.action,
      row.review_id,
      row.effect_key,
      row.reason,
      row.details,
      row.prev_hash,
      row.hash,
    ]),
    {
      header,
      columns: [...AUDIT_ENTRY_FIELDS],
      record_delimiter: "windows",
      // CSV injection: a cell starting with = + - @ (or tab, CR, their full-width forms) would be
      // a formula to a spreadsheet; it gets a leading ' so it stays text. Numbers are left alone.
      escape_formulas: true,
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
  const [top] = await db().$queryRawUnsafe<{ last: bigint }[]>(
    `SELECT coalesce(max(seq), 0)::bigint AS last FROM decision_log`,
  );
  const upTo = top?.last ?? 0n;
  const encoder = new TextEncoder();
  let after = 0n;
  let first = true;

  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const params: unknown[] = [];
        const where = auditWhere(filter, params);
        params.push(after);
        where.push(`seq > $${params.length}`);
        params.push(upTo);
        where.push(`seq <= $${params.length}`);
        params.push(EXPORT_CHUNK);
        const rows = await db().$queryRawUnsafe<AuditRow[]>(
          `SELECT ${AUDIT_COLUMNS} FROM decision_log WHERE ${where.join(" AND ")}
            ORDER BY seq ASC LIMIT $${params.length}`,
          ...params,
        );
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
