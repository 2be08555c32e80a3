import { POST as createOperationRoute } from "@/app/api/v1/operations/route";
import { describe, expect, it } from "vitest";
import { GET as listSettings } from "@/app/api/v1/operations/auto-replay/route";
import { PUT as putSetting } from "@/app/api/v1/operations/auto-replay/[kind]/route";
import { POST as act } from "@/app/api/v1/reviews/[id]/actions/route";
import { GET as detail } from "@/app/api/v1/reviews/[id]/route";
import { GET as list, POST as report } from "@/app/api/v1/reviews/route";
import { verifyDecisionLog } from "@/lib/audit";
import { autoReplayReady } from "@/lib/actions";
import { call, tokenFor } from "../support/http";
import { setupTestDatabase, withClient } from "../support/database";

// Gap release (docs/operations.md): a held sequence-gap record is `ready` once its key's last
// applied sequence reaches `sequence - 1`; the list filters by it, and per kind an owner may let
// the dispatcher replay ready records by themselves.

const database = setupTestDatabase();
const sql = <T = any>(text: string, params: unknown[] = []) =>
  withClient(database.current.url, async (c) => (await c.query(text, params)).rows as T[]);

const newTag = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;

const tokens: Record<string, string> = {};
async function as(role: string) {
  tokens[role] ??= await tokenFor(role as never);
  return tokens[role]!;
}

interface Spec {
  category?: string;
  kind?: string;
  sequenceKey: string;
  sequence: number;
}

let n = 0;
/** Reports one record through the API; its id, effectKey and message id are unique. */
async function record(spec: Spec): Promise<string> {
  n += 1;
  const tag = `${n}-${newTag()}`;
  const created = await call(report, {
    token: await as("consumer"),
    body: {
      category: spec.category ?? "sequence-gap",
      reason: spec.category ?? "sequence-gap",
      requiredCheck: `find the predecessor of ${spec.sequence}`,
      attempts: 1,
      message: {
        id: `msg-${tag}`,
        kind: spec.kind ?? "invoice.reminder",
        effectKey: `eff-${tag}`,
        sequenceKey: spec.sequenceKey,
        sequence: spec.sequence,
        payload: { schema: "2021-03", invoiceId: tag },
      },
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id as string;
}

async function setLast(sequenceKey: string, last: number) {
  await sql(
    `INSERT INTO sequence_state (sequence_key, last_sequence) VALUES ($1, $2)
     ON CONFLICT (sequence_key) DO UPDATE SET last_sequence = EXCLUDED.last_sequence`,
    [sequenceKey, last],
  );
}

async function listQuery(query: string) {
  return call(list, { token: await as("auditor"), path: `/api/v1/reviews?${query}` });
}

async function listItems(query: string): Promise<any[]> {
  const answer = await listQuery(query);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.items;
}

async function detailOf(id: string) {
  const answer = await call(detail, { token: await as("auditor"), params: { id }, path: `/api/v1/reviews/${id}` });
  expect(answer.status).toBe(200);
  return answer.body;
}

async function put(role: string, kind: string, body: unknown, token?: string) {
  return call(putSetting, {
    method: "PUT",
    token: token ?? (await as(role)),
    params: { kind },
    // An empty kind is no path segment (Next routes `/auto-replay/` elsewhere): `call` then
    // addresses the handler's own route.
    path: kind ? `/api/v1/operations/auto-replay/${kind}` : undefined,
    body,
  });
}

async function settings(role = "support") {
  const answer = await call(listSettings, { token: await as(role), path: "/api/v1/operations/auto-replay" });
  return answer;
}

describe("ready records", () => {
  it("a gap record becomes ready in the list and the detail once its predecessor is applied", async () => {
    const key = `invoice-${newTag()}`;
    const gap = await record({ sequenceKey: key, sequence: 5 });
    const unknown = await record({ category: "effect-result-unknown", sequenceKey: key, sequence: 4 });
    await setLast(key, 3);

    const before = await listItems(`sequenceKey=${key}`);
    expect(before.map((i) => [i.id, i.ready])).toEqual([
      [unknown, false],
      [gap, false],
    ]);
    expect((await detailOf(gap)).ready).toBe(false);

    // Support confirms message 4 with the provider: it is applied, the key advances to 4.
    const confirmed = await call(act, {
      token: await as("support"),
      params: { id: unknown },
      path: `/api/v1/reviews/${unknown}/actions`,
      body: {
        action: "confirm-applied",
        expectedVersion: 1,
        reason: "provider has it",
        checkDone: true,
        providerRef: "prov-4",
      },
    });
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    // The confirmed record is resolved, not ready (ready is only for open gap records).
    expect(confirmed.body.ready).toBe(false);

    const after = await listItems(`sequenceKey=${key}`);
    expect(after.map((i) => [i.id, i.ready])).toEqual([
      [unknown, false],
      [gap, true],
    ]);
    const gapDetail = await detailOf(gap);
    expect(gapDetail.ready).toBe(true);
    expect(gapDetail.sequenceState.lastSequence).toBe(4);
  });

  it("only an open gap record whose key reached sequence - 1 is ready", async () => {
    const kind = `kind-${newTag()}`;
    const key = (s: string) => `${kind}-${s}`;
    const ready = await record({ kind, sequenceKey: key("a"), sequence: 7 });
    const aheadOfIt = await record({ kind, sequenceKey: key("a"), sequence: 9 }); // 8 still missing
    const noState = await record({ kind, sequenceKey: key("b"), sequence: 3 });
    const manual = await record({ kind, category: "manual-review", sequenceKey: key("c"), sequence: 2 });
    const scheduled = await record({ kind, sequenceKey: key("d"), sequence: 2 });
    const passed = await record({ kind, sequenceKey: key("e"), sequence: 2 }); // last is beyond it
    const oneMissing = await record({ kind, sequenceKey: key("f"), sequence: 5 }); // 4 still missing
    // Held again for another reason: reopened with it, its category not updated yet.
    const reasonMoved = await record({ kind, sequenceKey: key("g"), sequence: 2 });
    await setLast(key("g"), 1);
    await sql(`UPDATE review_records SET reason = 'effect-result-unknown' WHERE id = $1`, [reasonMoved]);
    await setLast(key("a"), 6);
    await setLast(key("c"), 5);
    await setLast(key("d"), 1);
    await setLast(key("e"), 10);
    await setLast(key("f"), 3);
    await sql(`UPDATE review_records SET status = 'replay-scheduled' WHERE id = $1`, [scheduled]);

    const all = await listItems(`kind=${kind}`);
    const readyById = Object.fromEntries(all.map((i) => [i.id, i.ready]));
    expect(readyById).toEqual({
      [ready]: true,
      [aheadOfIt]: false,
      [noState]: false,
      [manual]: false,
      [scheduled]: false,
      [passed]: true,
      [oneMissing]: false,
      [reasonMoved]: false,
    });
    for (const [id, expected] of Object.entries(readyById)) expect((await detailOf(id)).ready, id).toBe(expected);
  });
});

describe("GET /api/v1/reviews?ready=true", () => {
  it("lists the ready records only, newest first, keyset-paginated, combined with the other filters", async () => {
    const kind = `kind-${newTag()}`;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const key = `${kind}-${i}`;
      ids.push(await record({ kind, sequenceKey: key, sequence: 4 }));
      await setLast(key, i % 2 === 0 ? 3 : 2); // even keys ready, odd keys still missing 3
    }
    const closed = await record({ kind, sequenceKey: `${kind}-closed`, sequence: 2 });
    await setLast(`${kind}-closed`, 1);
    await sql(`UPDATE review_records SET status = 'cancelled' WHERE id = $1`, [closed]);
    const expected = [ids[4], ids[2], ids[0]];

    const page = await listItems(`ready=true&kind=${kind}`);
    expect(page.map((i) => i.id)).toEqual(expected);
    expect(page.every((i) => i.ready && i.status === "open" && i.category === "sequence-gap")).toBe(true);

    // One per page: the cursor walks the same ready records.
    const walked: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const answer = await listQuery(`ready=true&kind=${kind}&limit=1${cursor ? `&cursor=${cursor}` : ""}`);
      expect(answer.status).toBe(200);
      walked.push(...answer.body.items.map((i: any) => i.id));
      cursor = answer.body.nextCursor;
      if (!cursor) break;
    }
    expect(walked).toEqual(expected);

    // With another filter: the intersection.
    expect((await listItems(`ready=true&sequenceKey=${kind}-2`)).map((i) => i.id)).toEqual([ids[2]]);
    expect(await listItems(`ready=true&sequenceKey=${kind}-1`)).toEqual([]);
    expect(await listItems(`ready=true&kind=${kind}&status=resolved`)).toEqual([]);
    // Without the filter every record is listed, ready or not.
    expect(await listItems(`kind=${kind}`)).toHaveLength(6);
  });

  it("a bulk operation on the filter ready=true freezes exactly the ready records", async () => {
    const kind = `kind-${newTag()}`;
    const ready: string[] = [];
    for (let i = 0; i < 4; i++) {
      const key = `${kind}-${i}`;
      const id = await record({ kind, sequenceKey: key, sequence: 4 });
      await setLast(key, i < 2 ? 3 : 1);
      if (i < 2) ready.push(id);
    }
    const created = await call(createOperationRoute, {
      token: await as("owner"),
      path: "/api/v1/operations",
      body: { action: "note", reason: "ready ones", selection: { type: "filter", filter: { ready: "true", kind } } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.total).toBe(2);
    const items = await sql(`SELECT review_id::text FROM bulk_operation_items WHERE operation_id = $1`, [
      created.body.id,
    ]);
    expect(items.map((i) => i.review_id).sort()).toEqual(ready.sort());
    // The record page links the operations a record belongs to.
    expect((await detailOf(ready[0]!)).operations).toEqual([
      {
        operationId: created.body.id,
        action: "note",
        operationState: "planned",
        itemState: "pending",
        position: expect.any(Number),
      },
    ]);
  });

  it("refuses any other value of ready with a 400 naming it", async () => {
    for (const value of ["false", "1", "TRUE", "", "yes"]) {
      const answer = await listQuery(`ready=${value}`);
      expect(answer.status, value).toBe(400);
      expect(answer.body.error.code).toBe("invalid-request");
      expect(answer.body.error.issues[0].path, value).toBe("ready");
    }
  });
});

describe("/api/v1/operations/auto-replay", () => {
  it("GET lists the registry's kinds, off by default, for anyone who reads records", async () => {
    const kind = `kind-${newTag()}`;
    await setLast(`${kind}-k`, 1);
    await record({ kind: "invoice.reminder", sequenceKey: `${kind}-k`, sequence: 2 });
    for (const role of ["owner", "support", "auditor", "admin"]) {
      const answer = await settings(role);
      expect(answer.status, role).toBe(200);
      const invoice = answer.body.kinds.find((k: any) => k.kind === "invoice.reminder");
      expect(invoice).toMatchObject({ autoReplayReady: false, updatedBy: null, updatedAt: null });
      expect(invoice.ready).toBeGreaterThanOrEqual(1);
    }
    expect((await settings("consumer")).status).toBe(403);
  });

  it("PUT (owner) turns it on and off, logged; the setting is listed afterwards", async () => {
    const ownerName = `alice-${newTag()}`;
    const owner = await tokenFor("owner", ownerName);
    const on = await put("owner", "invoice.reminder", { enabled: true, reason: "gaps close by themselves" }, owner);
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    expect(on.body).toMatchObject({
      kind: "invoice.reminder",
      autoReplayReady: true,
      updatedBy: `token:${ownerName}`,
      updatedAt: expect.any(String),
      ready: expect.any(Number),
    });
    const listed = (await settings()).body.kinds.find((k: any) => k.kind === "invoice.reminder");
    expect(listed).toEqual(on.body);

    // URL-encoded kind names are decoded.
    const off = await put("owner", "invoice%2Ereminder", { enabled: false, reason: "  not yet  " }, owner);
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ kind: "invoice.reminder", autoReplayReady: false });

    const log = await sql(
      `SELECT actor, actor_role, action, reason, details FROM decision_log
        WHERE action LIKE 'kind.auto-replay-%' AND details->>'kind' = 'invoice.reminder' ORDER BY seq`,
    );
    expect(log).toEqual([
      {
        actor: `token:${ownerName}`,
        actor_role: "owner",
        action: "kind.auto-replay-enabled",
        reason: "gaps close by themselves",
        details: { kind: "invoice.reminder", enabled: true },
      },
      {
        actor: `token:${ownerName}`,
        actor_role: "owner",
        action: "kind.auto-replay-disabled",
        reason: "not yet",
        details: { kind: "invoice.reminder", enabled: false },
      },
    ]);
    expect((await verifyDecisionLog(database.current.url)).ok).toBe(true);
  });

  it("refuses other roles (403, logged), bad bodies and bad kinds (400), unknown kinds (404), writing nothing", async () => {
    const count = async () => (await sql(`SELECT count(*)::int AS n FROM kind_settings`))[0].n as number;
    const logged = async () =>
      (await sql(`SELECT count(*)::int AS n FROM decision_log WHERE action LIKE 'kind.%'`))[0].n as number;
    const settingsBefore = await count();
    const logBefore = await logged();

    for (const role of ["support", "auditor", "admin", "consumer"]) {
      const answer = await put(role, "invoice.reminder", { enabled: true, reason: "mine" });
      expect(answer.status, role).toBe(403);
    }
    const refusals = await sql(
      `SELECT actor_role FROM decision_log
        WHERE action = 'authorization.refused' AND details->>'path' = '/api/v1/operations/auto-replay/invoice.reminder'
        ORDER BY seq`,
    );
    expect(refusals.map((r) => r.actor_role)).toEqual(["support", "auditor", "admin", "consumer"]);

    const bad: [unknown, string][] = [
      [{ enabled: "yes", reason: "x" }, "enabled"],
      [{ reason: "x" }, "enabled"],
      [{ enabled: true }, "reason"],
      [{ enabled: true, reason: "   " }, "reason"],
      [{ enabled: true, reason: 5 }, "reason"],
    ];
    for (const [body, field] of bad) {
      const answer = await put("owner", "invoice.reminder", body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.issues[0].path, JSON.stringify(body)).toBe(field);
    }
    for (const kind of ["", "x".repeat(201), "%E0%A4%A", "a%00b"]) {
      const answer = await put("owner", kind, { enabled: true, reason: "x" });
      expect(answer.status, kind).toBe(400);
      expect(answer.body.error.issues[0].path).toBe("kind");
    }
    const unknown = await put("owner", `nobody-${newTag()}`, { enabled: true, reason: "x" });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("not-found");

    expect(await count()).toBe(settingsBefore);
    expect(await logged()).toBe(logBefore);
  });

  it("a kind outside the registry is accepted when records of it exist, and is listed from then on", async () => {
    const kind = `legacy-${newTag()}`;
    await setLast(`${kind}-k`, 4);
    await record({ kind, sequenceKey: `${kind}-k`, sequence: 5 });
    expect((await settings()).body.kinds.some((k: any) => k.kind === kind)).toBe(false);
    const answer = await put("owner", kind, { enabled: false, reason: "looked at it" });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ kind, autoReplayReady: false, ready: 1 });
    const kinds = (await settings()).body.kinds as { kind: string }[];
    expect(kinds.find((k) => k.kind === kind)).toEqual(answer.body);
    const names = kinds.map((k) => k.kind);
    expect(names).toEqual([...names].sort());
  });
});

describe("autoReplayReady()", () => {
  it("replays the ready open records of enabled kinds only, naming who enabled it; a second call does nothing", async () => {
    // Nothing enabled (the earlier tests left every kind off): nothing happens.
    expect(await autoReplayReady()).toBe(0);

    const on = `on-${newTag()}`;
    const off = `off-${newTag()}`;
    await setLast(`${on}-a`, 4);
    await setLast(`${on}-b`, 0);
    await setLast(`${off}-a`, 4);
    const readyA5 = await record({ kind: on, sequenceKey: `${on}-a`, sequence: 5 });
    const waitingA7 = await record({ kind: on, sequenceKey: `${on}-a`, sequence: 7 }); // 6 missing
    const readyB1 = await record({ kind: on, sequenceKey: `${on}-b`, sequence: 1 });
    const notGap = await record({ kind: on, category: "manual-review", sequenceKey: `${on}-c`, sequence: 1 });
    const otherKind = await record({ kind: off, sequenceKey: `${off}-a`, sequence: 5 });

    const enabler = `alice-${newTag()}`;
    const owner = await tokenFor("owner", enabler);
    const enabled = await put("owner", on, { enabled: true, reason: "let them flow" }, owner);
    expect(enabled.status).toBe(200);
    expect(enabled.body.ready).toBe(2);
    expect((await put("owner", off, { enabled: false, reason: "keep it manual" }, owner)).status).toBe(200);

    // One at a time when asked, then the rest.
    expect(await autoReplayReady({ limit: 1 })).toBe(1);
    expect(await autoReplayReady()).toBe(1);
    expect(await autoReplayReady()).toBe(0);

    const status = async (id: string) => (await detailOf(id)).status;
    expect(await status(readyA5)).toBe("replay-scheduled");
    expect(await status(readyB1)).toBe("replay-scheduled");
    expect(await status(waitingA7)).toBe("open");
    expect(await status(notGap)).toBe("open");
    expect(await status(otherKind)).toBe("open");

    const entries = await sql(
      `SELECT review_id::text AS id, actor, actor_role, reason, details FROM decision_log
        WHERE action = 'review.replay' AND review_id = ANY($1::uuid[]) ORDER BY seq`,
      [[readyA5, readyB1, waitingA7, notGap, otherKind]],
    );
    expect(entries.map((e) => e.id).sort()).toEqual([readyA5, readyB1].sort());
    const [setting] = await sql(`SELECT updated_at FROM kind_settings WHERE kind = $1`, [on]);
    for (const entry of entries) {
      expect(entry).toMatchObject({ actor: "system:auto-replay", actor_role: "owner" });
      expect(entry.reason).toContain(`automatic replay of ready ${on} records`);
      expect(entry.reason).toContain(`enabled by token:${enabler}`);
      expect(entry.reason).toContain((setting.updated_at as Date).toISOString());
      expect(entry.details).toMatchObject({ fromStatus: "open", toStatus: "replay-scheduled", checkDone: true });
    }
    const replays = await sql(
      `SELECT review_id::text AS id, created_by FROM replays WHERE review_id = ANY($1::uuid[])`,
      [[readyA5, readyB1]],
    );
    expect(replays).toHaveLength(2);
    expect(replays.every((r) => r.created_by === "system:auto-replay")).toBe(true);

    // The list no longer counts them as ready; turning the kind off stops further replays.
    expect(await listItems(`ready=true&kind=${on}`)).toEqual([]);
    await setLast(`${on}-a`, 6);
    expect((await put("owner", on, { enabled: false, reason: "enough" }, owner)).status).toBe(200);
    expect(await autoReplayReady()).toBe(0);
    expect(await status(waitingA7)).toBe("open");
    expect((await verifyDecisionLog(database.current.url)).ok).toBe(true);
  });
});
