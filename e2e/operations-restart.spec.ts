import { randomBytes } from "node:crypto";
import { test as base, expect } from "@playwright/test";
import { hashToken, newToken } from "@/lib/auth";
import { migrate } from "../lib/db/migrate";
import { resolveTestServer } from "../testing/db/test-server";
import { withConnection } from "../lib/db/connection";
import { type RunningServer, startServer, stopServer } from "./fixtures";

// A console killed (SIGKILL) in the middle of a bulk replay and started again on the same
// database: the dispatcher in the new process resumes where the old one stopped, and no record
// is dispatched twice. Its own database and servers, so no other dispatcher takes part.

const test = base;
const RECORDS = 60;
const RATE = 10;

test("a console restarted mid-operation resumes it and dispatches nothing twice", async ({ request }) => {
  test.setTimeout(180_000);
  const pgServer = await resolveTestServer();
  const name = `rc_e2e_restart_${randomBytes(4).toString("hex")}`;
  const url = new URL(pgServer.serverUrl);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  const sql = async <T = Record<string, unknown>>(text: string, params: unknown[] = []) =>
    withConnection(databaseUrl, async (c) => (await c.query(text, params)).rows as T[]);
  await withConnection(pgServer.serverUrl, (c) => c.query(`CREATE DATABASE ${name}`));
  const secret = randomBytes(32).toString("base64url");
  let server: RunningServer | undefined;
  try {
    await migrate(databaseUrl);
    const tokens = { owner: newToken(), consumer: newToken() };
    for (const [role, token] of Object.entries(tokens)) {
      await sql(`INSERT INTO api_tokens (name, role, token_hash, prefix) VALUES ($1, $2::"Role", $3, $4)`, [
        `e2e-${role}`,
        role,
        hashToken(token),
        token.slice(0, 12),
      ]);
    }
    const as = (role: keyof typeof tokens) => ({ authorization: `Bearer ${tokens[role]}` });
    server = await startServer(databaseUrl, secret);

    const cause = `restart-${randomBytes(4).toString("hex")}`;
    const records = Array.from({ length: RECORDS }, (_, i) => ({
      category: "sequence-gap",
      reason: "sequence-gap",
      requiredCheck: "find the predecessor",
      attempts: 1,
      lastError: `${cause} predecessor missing`,
      errorClass: cause,
      message: {
        id: `msg-${cause}-${i}`,
        kind: "invoice.reminder",
        effectKey: `${cause}-${i}:reminder-2`,
        sequenceKey: `${cause}-${i}`,
        sequence: 2,
        payload: { schema: "2021-03", invoiceId: `${cause}-${i}` },
      },
    }));
    const reported = await request.post(`${server.baseURL}/api/v1/reviews/batch`, {
      data: { records },
      headers: as("consumer"),
    });
    expect(reported.status(), await reported.text()).toBe(200);

    const created = await request.post(`${server.baseURL}/api/v1/operations`, {
      headers: as("owner"),
      data: {
        action: "replay",
        reason: "e2e: restart in the middle",
        selection: { type: "group", group: { kind: "invoice.reminder", reason: "sequence-gap", errorClass: cause } },
        ratePerSecond: RATE,
        autoPause: null,
      },
    });
    expect(created.status(), await created.text()).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const dryRun = await request.post(`${server.baseURL}/api/v1/operations/${id}/dry-run`, {
      headers: as("owner"),
      data: {},
    });
    const planned = (await dryRun.json()) as { version: number; dryRun: { at: string } };
    const confirmed = await request.post(`${server.baseURL}/api/v1/operations/${id}/confirm`, {
      headers: as("owner"),
      data: { expectedVersion: planned.version, dryRunAt: planned.dryRun.at, checkDone: true },
    });
    expect(confirmed.status(), await confirmed.text()).toBe(200);

    const dispatched = async () =>
      Number((await sql<{ n: number }>(`SELECT dispatched AS n FROM bulk_operations WHERE id = $1`, [id]))[0]!.n);
    await expect
      .poll(dispatched, { timeout: 30_000, message: "the first console dispatches" })
      .toBeGreaterThanOrEqual(15);
    await stopServer(server.child, "SIGKILL");
    server = undefined;
    const atKill = await dispatched();
    expect(atKill, "killed in the middle").toBeLessThan(RECORDS);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await dispatched(), "nothing moves while no console runs").toBe(atKill);

    server = await startServer(databaseUrl, secret);
    await expect
      .poll(dispatched, { timeout: 60_000, message: "the restarted console finishes the dispatch" })
      .toBe(RECORDS);

    // Every record once: one replay, one decision-log entry, its item dispatched with that replay.
    const perRecord = await sql<{ replays: number; entries: number; item_state: string; same: boolean }>(
      `SELECT (SELECT count(*)::int FROM replays r WHERE r.review_id = i.review_id) AS replays,
              (SELECT count(*)::int FROM decision_log d
                WHERE d.review_id = i.review_id AND d.action = 'review.replay') AS entries,
              i.state::text AS item_state,
              i.replay_id = (SELECT r.id FROM replays r WHERE r.review_id = i.review_id LIMIT 1) AS same
         FROM bulk_operation_items i WHERE i.operation_id = $1`,
      [id],
    );
    expect(perRecord).toHaveLength(RECORDS);
    expect(
      perRecord.filter((r) => r.replays !== 1 || r.entries !== 1 || r.item_state !== "dispatched" || !r.same),
    ).toEqual([]);
    // The operation's page answers from the new process, running, all dispatched.
    const view = await request.get(`${server.baseURL}/api/v1/operations/${id}`, { headers: as("owner") });
    expect(await view.json()).toMatchObject({ state: "running", progress: { dispatched: RECORDS } });
  } finally {
    if (server) await stopServer(server.child);
    await withConnection(pgServer.serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    await pgServer.stop();
  }
});
