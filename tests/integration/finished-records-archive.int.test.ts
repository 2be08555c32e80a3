/**
 * `review-console archive` for finished records (docs/decisions/0024-finished-record-partitions.md):
 * a month of resolved and cancelled records leaves the live tables for an NDJSON file with their
 * history, revisions and replays; open records of the same age stay; the counts kept by triggers
 * lose exactly what left; the detail of an archived id names its file; a second run changes
 * nothing; a partition a crashed run left is written and detached by the next run.
 */
import { mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { GET as detail } from "@/app/api/v1/reviews/[id]/route";
import { POST as act } from "@/app/api/v1/reviews/[id]/actions/route";
import { GET as list, POST as report } from "@/app/api/v1/reviews/route";
import { GET as stats } from "@/app/api/v1/reviews/stats/route";
import { verifyDecisionLog } from "@/lib/audit";
import { addMonths, archiveFinishedRecords, finishedRecordsCutoff, retentionMonthsFromEnv } from "@/lib/retention";
import { call, tokenFor } from "../support/http";
import { setupTestDatabase, withClient } from "../support/database";

const database = setupTestDatabase();
const sql = <T = any>(text: string, params: unknown[] = []) =>
  withClient(database.current.url, async (c) => (await c.query(text, params)).rows as T[]);

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});
async function archiveDir() {
  const dir = await mkdtemp(path.join(tmpdir(), "finished-records-"));
  dirs.push(dir);
  return dir;
}

const tokens: Record<string, string> = {};
const as = async (role: string) => (tokens[role] ??= await tokenFor(role as never));

let n = 0;
/** A record reported through the API; its message text has a key order jsonb would not keep. */
async function record(category: string, reason: string) {
  n += 1;
  const tag = `${n}-${Math.random().toString(36).slice(2, 8)}`;
  const message = {
    zeta: 1,
    id: `msg-${tag}`,
    kind: "invoice.reminder",
    effectKey: `invoice-${tag}:reminder`,
    payload: { b: 2, a: 1 },
  };
  const created = await call(report, {
    token: await as("consumer"),
    body: { category, reason, requiredCheck: "look at it", attempts: 1, message },
  });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

async function act_(id: string, body: Record<string, unknown>) {
  const res = await call(act, {
    token: await as("owner"),
    params: { id },
    path: `/api/v1/reviews/${id}/actions`,
    body,
  });
  expect(res.status).toBe(200);
  return res.body;
}

/** Moves a record's last change back to `at`, as if it had finished then. */
const backdate = (id: string, at: string) => sql(`UPDATE review_records SET updated_at = $2 WHERE id = $1`, [id, at]);

/** The counts kept by triggers must equal a real GROUP BY over the live records. */
async function expectCountsMatchLiveRecords() {
  const kept = await sql(
    `SELECT status::text, category::text, reason, sum(n)::int AS n FROM review_record_counts
      GROUP BY 1, 2, 3 HAVING sum(n) <> 0 ORDER BY 1, 2, 3`,
  );
  const real = await sql(
    `SELECT status::text, category::text, reason, count(*)::int AS n FROM review_records GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
  );
  expect(kept).toEqual(real);
  const groups = await sql(
    `SELECT status::text, category::text, kind, reason, error_class, sum(n)::int AS n FROM review_group_counts
      GROUP BY 1, 2, 3, 4, 5 HAVING sum(n) <> 0 ORDER BY 1, 2, 3, 4, 5`,
  );
  const realGroups = await sql(
    `SELECT status::text, category::text, kind, reason, error_class, count(*)::int AS n FROM review_records
      GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5`,
  );
  expect(groups).toEqual(realGroups);
  const replays = await sql(
    `SELECT state::text, sum(n)::int AS n FROM replay_counts GROUP BY 1 HAVING sum(n) <> 0 ORDER BY 1`,
  );
  expect(replays).toEqual(await sql(`SELECT state::text, count(*)::int AS n FROM replays GROUP BY 1 ORDER BY 1`));
}

async function statsByReason(reason: string) {
  const res = await call(stats, { token: await as("auditor") });
  expect(res.status).toBe(200);
  return res.body.byReason[reason] ?? 0;
}

describe("the cutoff", () => {
  it("is --before as given, else the current month minus RETENTION_FINISHED_MONTHS (12 unset)", () => {
    const now = new Date("2026-12-01T10:00:00Z");
    expect(finishedRecordsCutoff({ before: "2026-03", now })).toBe("2026-03");
    expect(finishedRecordsCutoff({ retentionMonths: 6, now })).toBe("2026-06");
    expect(finishedRecordsCutoff({ retentionMonths: 12, now })).toBe("2025-12");
    expect(addMonths("2026-01", -1)).toBe("2025-12");
    expect(retentionMonthsFromEnv({})).toBe(12);
    expect(retentionMonthsFromEnv({ RETENTION_FINISHED_MONTHS: "3" })).toBe(3);
    expect(() => retentionMonthsFromEnv({ RETENTION_FINISHED_MONTHS: "0" })).toThrow(/RETENTION_FINISHED_MONTHS/);
    expect(() => retentionMonthsFromEnv({ RETENTION_FINISHED_MONTHS: "two" })).toThrow(/RETENTION_FINISHED_MONTHS/);
    expect(() => finishedRecordsCutoff({ before: "2026-13", now })).toThrow(/--before must be a month/);
    // The current month is not over: its finished records may still change.
    expect(() => finishedRecordsCutoff({ before: "2027-01", now })).toThrow(/not over/);
  });
});

describe("archiveFinishedRecords", () => {
  it("archives a month of finished records with their history; open records of that age stay; counts follow", async () => {
    const reason = `archive-${Math.random().toString(36).slice(2, 8)}`;
    // Finished in 2025-03: one cancelled (a note, then a replay it cancelled), one resolved by the
    // provider's word.
    const cancelled = await record("manual-review", reason);
    await act_(cancelled, { action: "note", expectedVersion: 1, reason: "asked the team" });
    await act_(cancelled, { action: "replay", expectedVersion: 2, reason: "try again", checkDone: true });
    await act_(cancelled, { action: "cancel", expectedVersion: 3, reason: "not needed", checkDone: true });
    const resolved = await record("effect-result-unknown", reason);
    await act_(resolved, {
      action: "confirm-applied",
      expectedVersion: 1,
      reason: "provider says yes",
      checkDone: true,
      providerRef: "prov-1",
    });
    // Just as old, but still awaiting an outcome: open and replay-scheduled.
    const open = await record("manual-review", reason);
    const scheduled = await record("manual-review", reason);
    await act_(scheduled, { action: "replay", expectedVersion: 1, reason: "try again", checkDone: true });
    // Finished in the cutoff month itself: stays.
    const recent = await record("manual-review", reason);
    await act_(recent, { action: "cancel", expectedVersion: 1, reason: "not needed", checkDone: true });
    for (const id of [cancelled, resolved, open, scheduled]) await backdate(id, "2025-03-14T12:00:00Z");
    await backdate(recent, "2025-04-01T00:00:00Z");

    const rowsOf = (table: string) =>
      sql<{ review_id: string; n: number }>(
        `SELECT rr.id::text AS review_id, (SELECT count(*)::int FROM ${table} t WHERE t.review_id = rr.id) AS n
           FROM review_records rr WHERE rr.id = ANY($1::uuid[])`,
        [[cancelled, resolved]],
      );
    const historyBefore = await rowsOf("review_history");
    const revisionsBefore = await rowsOf("review_revisions");
    const messageText = (await sql(`SELECT message::text AS t FROM review_records WHERE id = $1`, [cancelled]))[0].t;
    expect(await statsByReason(reason)).toBe(5);
    await expectCountsMatchLiveRecords();

    const dir = await archiveDir();
    const result = await archiveFinishedRecords(database.current.url, { before: "2025-04", dir });
    expect(result.before).toBe("2025-04");
    expect(result.months).toHaveLength(1);
    const [month] = result.months;
    expect(month).toMatchObject({ month: "2025-03", part: 1, records: 2 });
    expect(path.basename(month!.file)).toBe("finished-records-2025-03.ndjson");

    // The file: one line per archived record, with its history, revisions and exact message.
    const text = await readFile(month!.file, "utf8");
    const lines = text
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.map((l) => l.record.id).sort()).toEqual([cancelled, resolved].sort());
    for (const line of lines) {
      expect(line.month).toBe("2025-03");
      expect(["resolved", "cancelled"]).toContain(line.record.status);
      const expected = historyBefore.find((h) => h.review_id === line.record.id)!.n;
      expect(line.history).toHaveLength(expected);
      expect(line.revisions).toHaveLength(revisionsBefore.find((h) => h.review_id === line.record.id)!.n);
    }
    const cancelledLine = lines.find((l) => l.record.id === cancelled);
    expect(cancelledLine.messageText).toBe(messageText);
    expect(cancelledLine.history.map((h: { action: string }) => h.action)).toContain("note");
    expect(cancelledLine.replays.map((r: { state: string }) => r.state)).toEqual(["cancelled"]);
    expect((await readdir(dir)).filter((f) => f.endsWith(".tmp"))).toEqual([]);

    // Live tables: the finished ones and every row that referenced them are gone; the rest stays.
    const live = await sql(`SELECT id::text, status::text FROM review_records WHERE reason = $1 ORDER BY seq`, [
      reason,
    ]);
    expect(live.map((r) => r.id)).toEqual([open, scheduled, recent]);
    expect(live.map((r) => r.status)).toEqual(["open", "replay-scheduled", "cancelled"]);
    for (const table of ["review_history", "review_revisions", "replays", "bulk_operation_items"]) {
      const [left] = await sql(`SELECT count(*)::int AS n FROM ${table} WHERE review_id = ANY($1::uuid[])`, [
        [cancelled, resolved],
      ]);
      expect(left.n, table).toBe(0);
    }
    // Nothing attached is left, and the file is on record.
    expect(await sql(`SELECT count(*)::int AS n FROM finished_records`)).toEqual([{ n: 0 }]);
    expect(await sql(`SELECT inhrelid FROM pg_inherits WHERE inhparent = 'finished_records'::regclass`)).toEqual([]);
    expect(await sql(`SELECT finished_month, part, file, records FROM finished_record_archives`)).toEqual([
      { finished_month: "2025-03", part: 1, file: "finished-records-2025-03.ndjson", records: 2 },
    ]);
    const [logged] = await sql(`SELECT actor, details FROM decision_log WHERE action = 'records.archived'`);
    expect(logged).toMatchObject({
      actor: "system:archive",
      details: { month: "2025-03", records: 2, sha256: month!.sha256 },
    });
    expect((await verifyDecisionLog(database.current.url)).ok).toBe(true);

    // Counts: the stats count live records only, and every kept count still equals a GROUP BY.
    expect(await statsByReason(reason)).toBe(3);
    await expectCountsMatchLiveRecords();

    // The live API: an open record reads as before; an archived one is a 404 naming its file.
    const stillOpen = await call(detail, { token: await as("auditor"), params: { id: open } });
    expect(stillOpen.status).toBe(200);
    expect(stillOpen.body.status).toBe("open");
    const gone = await call(detail, { token: await as("auditor"), params: { id: cancelled } });
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe("review-archived");
    expect(gone.body.error.message).toContain("finished-records-2025-03.ndjson");
    expect(gone.body.archived).toMatchObject({ month: "2025-03", files: ["finished-records-2025-03.ndjson"] });
    const unknown = await call(detail, {
      token: await as("auditor"),
      params: { id: "00000000-0000-4000-8000-000000000000" },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("not-found");
    const listed = await call(list, { token: await as("auditor"), path: `/api/v1/reviews?reason=${reason}` });
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((i: { id: string }) => i.id).sort()).toEqual([open, scheduled, recent].sort());
    await act_(open, { action: "note", expectedVersion: 1, reason: "still here" });

    // Again: nothing to do, nothing changed, the file untouched.
    const again = await archiveFinishedRecords(database.current.url, { before: "2025-04", dir });
    expect(again.months).toEqual([]);
    expect(await readFile(month!.file, "utf8")).toBe(text);
    expect(await sql(`SELECT count(*)::int AS n FROM finished_record_archives`)).toEqual([{ n: 1 }]);
    expect(await sql(`SELECT count(*)::int AS n FROM review_records WHERE reason = $1`, [reason])).toEqual([{ n: 3 }]);
  }, 120_000);

  it("writes and detaches a partition that a crashed run left, and a later part of an archived month", async () => {
    // What a run that crashed after the move leaves: an attached partition with its records
    // (and a half-written temporary file).
    const reason = `crash-${Math.random().toString(36).slice(2, 8)}`;
    const crashed = await record("manual-review", reason);
    await act_(crashed, { action: "cancel", expectedVersion: 1, reason: "not needed", checkDone: true });
    await backdate(crashed, "2024-07-02T00:00:00Z");
    const dir = await archiveDir();
    await writeFile(path.join(dir, "finished-records-2024-07.ndjson.tmp"), "{half");
    await sql(`CREATE TABLE finished_records_2024_07 PARTITION OF finished_records FOR VALUES IN ('2024-07')`);
    await sql(
      `INSERT INTO finished_records (finished_month, id, seq, status, finished_at, document)
       SELECT '2024-07', id, seq, status, updated_at, jsonb_build_object('record', to_jsonb(rr) - 'message') FROM review_records rr WHERE id = $1`,
      [crashed],
    );
    await sql(`INSERT INTO archived_review_records (id, finished_month) VALUES ($1, '2024-07')`, [crashed]);
    for (const table of ["review_history", "review_revisions", "replays"])
      await sql(`DELETE FROM ${table} WHERE review_id = $1`, [crashed]);
    await sql(`DELETE FROM review_records WHERE id = $1`, [crashed]);

    // An archived month (part 1) that then gets another finished record (say a running operation
    // had held it back): part 2.
    const first = await record("manual-review", reason);
    await act_(first, { action: "cancel", expectedVersion: 1, reason: "not needed", checkDone: true });
    await backdate(first, "2024-09-20T00:00:00Z");
    const result = await archiveFinishedRecords(database.current.url, { before: "2025-04", dir });
    expect(result.months.map((m) => [m.month, m.part, path.basename(m.file), m.records])).toEqual([
      ["2024-07", 1, "finished-records-2024-07.ndjson", 1],
      ["2024-09", 1, "finished-records-2024-09.ndjson", 1],
    ]);
    const late = await record("manual-review", reason);
    await act_(late, { action: "cancel", expectedVersion: 1, reason: "not needed", checkDone: true });
    await backdate(late, "2024-09-21T00:00:00Z");
    const second = await archiveFinishedRecords(database.current.url, { before: "2025-04", dir });
    expect(second.months.map((m) => [m.month, m.part, path.basename(m.file), m.records])).toEqual([
      ["2024-09", 2, "finished-records-2024-09.part2.ndjson", 1],
    ]);
    expect(JSON.parse(await readFile(second.months[0]!.file, "utf8")).record.id).toBe(late);
    const crashedLines = (await readFile(result.months[0]!.file, "utf8")).trimEnd().split("\n");
    expect(crashedLines.map((l) => JSON.parse(l).record.id)).toEqual([crashed]);
    expect(await readdir(dir)).not.toContain("finished-records-2024-07.ndjson.tmp");
    expect(await sql(`SELECT inhrelid FROM pg_inherits WHERE inhparent = 'finished_records'::regclass`)).toEqual([]);
    await expectCountsMatchLiveRecords();
  });

  it("moves in batches in seq order, whatever the number of digits", async () => {
    const reason = `batches-${Math.random().toString(36).slice(2, 8)}`;
    const ids: string[] = [];
    for (const seq of [70_000, 80_000, 90_000, 100_000, 110_000, 120_000]) {
      const id = await record("manual-review", reason);
      await act_(id, { action: "cancel", expectedVersion: 1, reason: "not needed", checkDone: true });
      await sql(`UPDATE review_records SET seq = $2, updated_at = '2022-02-02T00:00:00Z' WHERE id = $1`, [id, seq]);
      ids.push(id);
    }
    const dir = await archiveDir();
    const result = await archiveFinishedRecords(database.current.url, { before: "2022-03", dir, batchSize: 2 });
    expect(result.months.map((m) => [m.month, m.records])).toEqual([["2022-02", 6]]);
    const lines = (await readFile(result.months[0]!.file, "utf8")).trimEnd().split("\n");
    expect(lines.map((l) => JSON.parse(l).record.id)).toEqual(ids);
    expect(await sql(`SELECT count(*)::int AS n FROM review_records WHERE reason = $1`, [reason])).toEqual([{ n: 0 }]);
    await expectCountsMatchLiveRecords();
  });

  it("leaves a finished record that a running bulk operation holds", async () => {
    const reason = `held-${Math.random().toString(36).slice(2, 8)}`;
    const held = await record("manual-review", reason);
    await act_(held, { action: "cancel", expectedVersion: 1, reason: "not needed", checkDone: true });
    const [operation] = await sql(
      `INSERT INTO bulk_operations (action, state, reason, selection, total, created_by, created_role, rate_per_second)
       VALUES ('note', 'running', 'held', '{"type":"ids"}', 1, 'test', 'owner', 1) RETURNING id::text`,
    );
    await sql(
      `INSERT INTO bulk_operation_items (operation_id, position, review_id, frozen_version) VALUES ($1, 0, $2, 2)`,
      [operation.id, held],
    );
    await backdate(held, "2023-05-05T00:00:00Z");
    const dir = await archiveDir();
    const result = await archiveFinishedRecords(database.current.url, { before: "2023-06", dir });
    expect(result.months).toEqual([]);
    expect(result.heldBack).toBe(1);
    expect(await sql(`SELECT status::text FROM review_records WHERE id = $1`, [held])).toEqual([
      { status: "cancelled" },
    ]);

    // Once the operation is over, the record goes, with its operation item.
    await sql(`UPDATE bulk_operations SET state = 'completed' WHERE id = $1`, [operation.id]);
    const later = await archiveFinishedRecords(database.current.url, { before: "2023-06", dir });
    expect(later.months.map((m) => [m.month, m.records])).toEqual([["2023-05", 1]]);
    const [line] = (await readFile(later.months[0]!.file, "utf8"))
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(line.operationItems).toHaveLength(1);
    expect(line.operationItems[0].operation_id).toBe(operation.id);
    await expectCountsMatchLiveRecords();
  });
});
