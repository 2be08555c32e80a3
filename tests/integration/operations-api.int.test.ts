/**
 * The operations API (docs/operations.md) called in-process: create (the freeze and its log
 * entries), the dry run's verdicts, confirm, the controls' states, and every refusal: 400 naming
 * the field, 403 by the action's own permission (logged), 404, 409 and 422, each changing nothing.
 */
import { describe, expect, it } from "vitest";
import { GET as listRoute } from "@/app/api/v1/operations/route";
import { GET as groupsRoute } from "@/app/api/v1/reviews/groups/route";
import { type Actor } from "@/lib/access";
import { verifyDecisionLog } from "@/lib/audit";
import type { ActionRequest } from "@/lib/reviews";
import { performAction } from "@/lib/actions";
import { setupTestDatabase, withClient } from "../support/database";
import { call } from "../support/http";
import { dispatchUntil, envelope, newTag, operationsApi, reportGaps } from "../support/operations";

const database = setupTestDatabase();
const sql = <T = any>(text: string, params: unknown[] = []) =>
  withClient(database.current.url, async (c) => (await c.query(text, params)).rows as T[]);
const api = operationsApi();
const owner: Actor = { kind: "user", id: "owner-ops", label: "user:owner@ops.test", role: "owner" };
const KIND = "invoice.reminder";

async function setLast(sequenceKey: string, last: number) {
  await sql(
    `INSERT INTO sequence_state (sequence_key, last_sequence) VALUES ($1, $2)
     ON CONFLICT (sequence_key) DO UPDATE SET last_sequence = EXCLUDED.last_sequence`,
    [sequenceKey, last],
  );
}

async function journal(effectKey: string, state: string, leaseSeconds: number | null = null) {
  await sql(
    `INSERT INTO effect_journal (effect_key, state, lease_expires_at)
     VALUES ($1, $2::"JournalState", CASE WHEN $3::int IS NULL THEN NULL ELSE now() + make_interval(secs => $3::int) END)`,
    [effectKey, state, leaseSeconds],
  );
}

async function versionOf(id: string): Promise<number> {
  return (await sql(`SELECT version FROM review_records WHERE id = $1`, [id]))[0].version;
}

async function act(id: string, request: Omit<ActionRequest, "expectedVersion" | "checkDone">) {
  const result = await performAction(
    id,
    { ...request, expectedVersion: await versionOf(id), checkDone: true } as ActionRequest,
    owner,
  );
  expect(result).toMatchObject({ ok: true });
}

const operationCount = async () => Number((await sql(`SELECT count(*)::int AS n FROM bulk_operations`))[0].n);

async function logOf(operationId: string) {
  return sql<{ action: string; review_id: string | null; actor: string; details: any; reason: string | null }>(
    `SELECT action, review_id::text, actor, details, reason FROM decision_log
      WHERE details->>'operationId' = $1 ORDER BY seq`,
    [operationId],
  );
}

async function refusalsSince(seq: number) {
  return sql<{ actor_role: string; reason: string; details: any }>(
    `SELECT actor_role::text, reason, details FROM decision_log
      WHERE action = 'authorization.refused' AND seq > $1 ORDER BY seq`,
    [seq],
  );
}
const lastSeq = async () => Number((await sql(`SELECT coalesce(max(seq), 0) AS n FROM decision_log`))[0].n);

describe("POST /api/v1/operations", () => {
  it("freezes exactly the group's records (the groups view's count), logged once for the operation and once per record", async () => {
    const cause = `cause-${newTag()}`;
    const key = `inv-${newTag()}`;
    const ids = await reportGaps(
      [2, 3, 4, 5, 6].map((n) => envelope(KIND, `${key}-${n}`, n)),
      cause,
    );
    // A cancelled record of the same cause is not in the group (not an active status).
    await act(ids[4]!, { action: "cancel", reason: "lost for good" });
    const groups = await call(groupsRoute, { token: await api.token("auditor"), path: `/api/v1/reviews/groups` });
    const group = groups.body.groups.find((g: { errorClass: string }) => g.errorClass === cause);
    expect(group).toMatchObject({ kind: KIND, reason: "sequence-gap", count: 4 });

    const selection = { type: "group", group: { kind: KIND, reason: "sequence-gap", errorClass: cause } };
    const created = await api.create({ action: "replay", reason: "incident 7", selection });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const op = created.body;
    expect(op).toMatchObject({
      action: "replay",
      state: "planned",
      reason: "incident 7",
      selection,
      total: 4,
      ratePerSecond: 50,
      canarySize: 0,
      canaryPassed: true,
      autoPause: { threshold: 0.2, minOutcomes: 20 },
      pauseReason: null,
      dryRun: null,
      confirmedBy: null,
      progress: { dispatched: 0, outcomes: 0, heldAgain: 0, byState: { pending: 4 } },
      controls: ["dry-run", "abort"],
    });
    expect(op.createdBy).toMatch(/^token:owner-/);

    // Reported after the freeze: same cause, not in the operation.
    await reportGaps([envelope(KIND, `${key}-late`, 2)], cause);
    const items = await api.allItems(op.id);
    expect(items.map((i) => i.position)).toEqual([1, 2, 3, 4]);
    expect(items.map((i) => i.reviewId)).toEqual(ids.slice(0, 4));
    for (const item of items) {
      expect(item).toMatchObject({ state: "pending", verdict: null, frozenVersion: 1, record: { status: "open" } });
    }
    expect((await api.view(op.id)).total).toBe(4);

    const log = await logOf(op.id);
    expect(log.map((e) => e.action)).toEqual([
      "operation.created",
      ...ids.slice(0, 4).map(() => "operation.record-selected"),
    ]);
    expect(log[0]!.details).toMatchObject({ operationId: op.id, action: "replay", total: 4, selection });
    expect(log.slice(1).map((e) => [e.review_id, e.details.position, e.details.version])).toEqual(
      ids.slice(0, 4).map((id, i) => [id, i + 1, 1]),
    );
    // The same entries through the API, in log order.
    const viaApi = await api.log(op.id);
    expect(viaApi.status).toBe(200);
    expect(viaApi.body.items.map((e: { action: string }) => e.action).sort()).toEqual(log.map((e) => e.action).sort());
    expect((await verifyDecisionLog(database.current.url)).ok).toBe(true);
  });

  it("selects by ids and by filter, and lays a key's sequences in ascending order over the key's positions", async () => {
    const cause = `order-${newTag()}`;
    const k = `inv-${newTag()}`;
    const x = `inv-${newTag()}`;
    // Reported 4, x2, 2, 3: dispatched 2, x2, 3, 4.
    const [k4, x2, k2, k3] = await reportGaps(
      [envelope(KIND, k, 4), envelope(KIND, x, 2), envelope(KIND, k, 2), envelope(KIND, k, 3)],
      cause,
    );
    const byIds = await api.create({
      action: "note",
      reason: "order",
      selection: { type: "ids", ids: [k4, x2, k2, k3] },
    });
    expect(byIds.status, JSON.stringify(byIds.body)).toBe(201);
    const items = await api.allItems(byIds.body.id);
    expect(items.map((i) => [i.position, i.reviewId, i.sequence])).toEqual([
      [1, k2, 2],
      [2, x2, 2],
      [3, k3, 3],
      [4, k4, 4],
    ]);
    expect(byIds.body.autoPause, "auto-pause is off by default for a note").toBeNull();

    const byFilter = await api.create({
      action: "note",
      reason: "one key",
      selection: { type: "filter", filter: { sequenceKey: k, status: "open" } },
    });
    expect(byFilter.status, JSON.stringify(byFilter.body)).toBe(201);
    expect((await api.allItems(byFilter.body.id)).map((i) => i.reviewId)).toEqual([k2, k3, k4]);
  });

  it("answers 400 naming the field for bad input, and creates nothing", async () => {
    const [id] = await reportGaps([envelope(KIND, `inv-${newTag()}`, 2)], `bad-${newTag()}`);
    const ok = { action: "replay", reason: "r", selection: { type: "ids", ids: [id] } };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...ok, reason: "  " }, "reason"],
      [{ ...ok, reason: undefined }, "reason"],
      [{ ...ok, action: "skip-gap" }, "action"],
      [{ ...ok, selection: { type: "everything" } }, "selection.type"],
      [{ ...ok, selection: { type: "ids", ids: [] } }, "selection.ids"],
      [{ ...ok, selection: { type: "ids", ids: ["not-a-uuid"] } }, "selection.ids.0"],
      [{ ...ok, selection: { type: "filter", filter: {} } }, "selection.filter"],
      [{ ...ok, selection: { type: "filter", filter: { colour: "red" } } }, "selection.filter"],
      [
        { ...ok, selection: { type: "group", group: { kind: null, reason: "", errorClass: null } } },
        "selection.group.reason",
      ],
      [{ ...ok, ratePerSecond: 0 }, "ratePerSecond"],
      [{ ...ok, ratePerSecond: 1001 }, "ratePerSecond"],
      [{ ...ok, canarySize: -1 }, "canarySize"],
      [{ ...ok, canarySize: 1.5 }, "canarySize"],
      [{ ...ok, autoPause: { threshold: 1.5 } }, "autoPause.threshold"],
      [{ ...ok, autoPause: { threshold: 0.2, minOutcomes: 0 } }, "autoPause.minOutcomes"],
      [{ ...ok, runAt: "tomorrow" }, "runAt"],
      [{ ...ok, action: "note", runAt: new Date().toISOString() }, "runAt"],
      [{ ...ok, surprise: true }, ""],
      // What PostgreSQL would refuse (a 500 unless caught): a lone surrogate in jsonb, year 0000.
      [{ ...ok, selection: { type: "group", group: { kind: null, reason: "\ud800", errorClass: null } } }, "selection"],
      [{ ...ok, selection: { type: "filter", filter: { reason: "x\udc00" } } }, "selection"],
      [{ ...ok, runAt: "0000-06-01T00:00:00Z" }, "runAt"],
      [{ ...ok, ratePerSecond: 1e-9 }, "ratePerSecond"],
      // Past the selection's size: known only once it is frozen.
      [{ ...ok, canarySize: 2 }, "canarySize"],
    ];
    const before = await operationCount();
    for (const [body, path] of cases) {
      const res = await api.create(body);
      expect(res.status, `${JSON.stringify(body)} -> ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body.error.code).toBe("invalid-request");
      expect(res.body.error.issues.map((i: { path: string }) => i.path)).toContain(path);
      if (path) expect(res.body.error.message).toContain(path);
    }
    const notJson = await call((await import("@/app/api/v1/operations/route")).POST, {
      token: await api.token("owner"),
      rawBody: "{",
    });
    expect(notJson.status).toBe(400);
    expect(await operationCount()).toBe(before);
  });

  it("answers 422 for an empty selection and for unknown ids, naming them, and creates nothing", async () => {
    const [id] = await reportGaps([envelope(KIND, `inv-${newTag()}`, 2)], `u-${newTag()}`);
    const before = await operationCount();
    const lastLog = await lastSeq();
    const empty = await api.create({
      action: "replay",
      reason: "r",
      selection: { type: "group", group: { kind: KIND, reason: "sequence-gap", errorClass: `nothing-${newTag()}` } },
    });
    expect(empty.status).toBe(422);
    expect(empty.body.error.code).toBe("empty-selection");

    const unknown = "00000000-0000-4000-8000-000000000001";
    const some = await api.create({ action: "replay", reason: "r", selection: { type: "ids", ids: [id, unknown] } });
    expect(some.status).toBe(422);
    expect(some.body.error).toMatchObject({ code: "unknown-records" });
    expect(some.body.error.message).toContain(unknown);
    expect(some.body.error.issues).toEqual([{ path: "selection.ids", message: `no review record ${unknown}` }]);

    // Only unknown ids: still named, not just "empty".
    const none = await api.create({ action: "replay", reason: "r", selection: { type: "ids", ids: [unknown] } });
    expect(none.status).toBe(422);
    expect(none.body.error.code).toBe("unknown-records");
    expect(none.body.error.message).toContain(unknown);

    expect(await operationCount()).toBe(before);
    expect(await lastSeq(), "nothing was logged").toBe(lastLog);
    expect(
      (
        await sql(`SELECT count(*)::int AS n FROM bulk_operation_items i
                   WHERE NOT EXISTS (SELECT 1 FROM bulk_operations o WHERE o.id = i.operation_id)`)
      )[0].n,
    ).toBe(0);
  });
});

describe("roles", () => {
  it("refuses by the action's own permission (403, logged as authorization.refused); reading is for every reader", async () => {
    const [id] = await reportGaps([envelope(KIND, `inv-${newTag()}`, 2)], `role-${newTag()}`);
    const selection = { type: "ids", ids: [id] };
    const since = await lastSeq();
    const before = await operationCount();

    const byAuditor = await api.create({ action: "note", reason: "r", selection }, "auditor");
    expect(byAuditor.status).toBe(403);
    const bySupport = await api.create({ action: "replay", reason: "r", selection }, "support");
    expect(bySupport.status).toBe(403);
    expect(bySupport.body.error.message).toContain("support may not replay");
    expect((await api.create({ action: "cancel", reason: "r", selection }, "support")).status).toBe(403);
    expect(await operationCount()).toBe(before);

    const note = await api.create({ action: "note", reason: "support's note", selection }, "support");
    expect(note.status, JSON.stringify(note.body)).toBe(201);
    expect(note.body.controls).toEqual(["dry-run", "abort"]);

    const replay = await api.create({ action: "replay", reason: "r", selection });
    expect(replay.status).toBe(201);
    const opId = replay.body.id as string;
    const supportSees = await api.get(opId, "support");
    expect(supportSees.status).toBe(200);
    expect(supportSees.body.controls, "support may read, not control, a replay operation").toEqual([]);
    expect((await api.get(opId, "auditor")).body.controls).toEqual([]);
    expect((await api.get(opId, "admin")).status).toBe(200);
    expect((await api.items(opId, "", "auditor")).status).toBe(200);

    expect((await api.dryRun(opId, "support")).status).toBe(403);
    expect((await api.control("abort", opId, "mine now", "support")).status).toBe(403);
    expect((await api.dryRun(opId, "auditor")).status).toBe(403);
    expect((await api.get(opId, "consumer")).status).toBe(403);
    expect((await api.log(opId, "", "support")).status, "the log is for auditors, owners, admins").toBe(403);
    expect((await api.log(opId, "", "owner")).status).toBe(200);
    expect((await api.view(opId)).state, "nothing changed").toBe("planned");

    const refused = await refusalsSince(since);
    expect(refused.map((r) => r.actor_role)).toEqual([
      "auditor",
      "support",
      "support",
      "support",
      "support",
      "auditor",
      "consumer",
      "support",
    ]);
    expect(refused[1]!.reason).toContain("support may not replay");
    expect(refused[1]!.details).toMatchObject({ method: "POST", path: "/api/v1/operations" });
    expect(refused[3]!.details, "a refused control names its operation").toMatchObject({
      operationId: opId,
      path: `/api/v1/operations/${opId}/dry-run`,
    });
    expect(refused[4]!.details).toMatchObject({ operationId: opId, path: `/api/v1/operations/${opId}/abort` });
  });

  it("answers 404 for an unknown operation on every route", async () => {
    const unknown = "00000000-0000-4000-8000-0000000000ff";
    for (const id of [unknown, "not-a-uuid"]) {
      expect((await api.get(id)).status).toBe(404);
      expect((await api.items(id)).status).toBe(404);
      expect((await api.log(id)).status).toBe(404);
      expect((await api.dryRun(id)).status).toBe(404);
      expect(
        (await api.confirm(id, { expectedVersion: 1, dryRunAt: new Date().toISOString(), checkDone: true })).status,
      ).toBe(404);
      for (const control of ["pause", "resume", "abort"] as const) {
        const res = await api.control(control, id, "why");
        expect(res.status, `${control} ${id}`).toBe(404);
        expect(res.body.error.code).toBe("not-found");
      }
    }
  });
});

describe("dry run and confirm", () => {
  it("says what decide would do with each record now, simulating the operation's own earlier replays of a key", async () => {
    const cause = `dry-${newTag()}`;
    const t = newTag();
    const key = (name: string) => `${name}-${t}`;
    await setLast(key("a"), 1);
    await setLast(key("c"), 3);
    await setLast(key("g"), 2);
    await setLast(key("s"), 2);
    await journal(`${key("s")}:reminder-2`, "applied");
    await setLast(key("t"), 5);
    await setLast(key("u"), 1);
    await journal(`${key("u")}:reminder-2`, "unknown");
    await setLast(key("w"), 1);
    await journal(`${key("w")}:reminder-2`, "started", 600);
    const specs: [string, number, string][] = [
      ["a", 2, "would-apply"],
      ["c", 4, "would-apply"],
      ["c", 5, "would-apply"],
      ["c", 6, "would-apply"],
      ["g", 4, "would-hold-gap"],
      ["g", 5, "would-hold-gap"],
      ["g", 6, "would-hold-gap"],
      ["s", 2, "would-suppress"],
      ["t", 3, "would-hold-stale"],
      ["u", 2, "would-hold-unknown"],
      ["w", 2, "would-wait"],
      ["n", 2, "changed"],
    ];
    const ids = await reportGaps(
      specs.map(([name, n]) => envelope(KIND, key(name), n)),
      cause,
    );
    const [invalid] = await reportGaps(
      [envelope(KIND, key("v"), 1, { payload: { schema: "1999-01", invoiceId: "x" } })],
      cause,
      "manual-review",
    );
    const [unknownEffect] = await reportGaps([envelope(KIND, key("e"), 1)], cause, "effect-result-unknown");
    const all = [...ids, invalid!, unknownEffect!];
    const verdicts = [...specs.map((s) => s[2]), "invalid", "not-eligible"];

    const created = await api.create({ action: "replay", reason: "dry run", selection: { type: "ids", ids: all } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const opId = created.body.id as string;
    // Someone acts on one record after the freeze: its version moved.
    await act(ids[11]!, { action: "note", reason: "I am looking at this one" });

    const dry = await api.dryRun(opId);
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    expect(dry.body.dryRun.counts).toEqual({
      "would-apply": 4,
      "would-hold-gap": 3,
      "would-suppress": 1,
      "would-hold-stale": 1,
      "would-hold-unknown": 1,
      "would-wait": 1,
      changed: 1,
      invalid: 1,
      "not-eligible": 1,
    });
    expect(dry.body.version).toBe(created.body.version + 1);
    expect(dry.body.controls).toEqual(["dry-run", "confirm", "abort"]);
    const items = await api.allItems(opId);
    const byReview = new Map(items.map((i) => [i.reviewId, i]));
    expect(all.map((id) => byReview.get(id)!.verdict)).toEqual(verdicts);
    expect(byReview.get(ids[11]!)!.verdictDetail).toBe("version 1 at the freeze, 2 now");
    expect(byReview.get(invalid!)!.verdictDetail).toMatch(/^unsupported-schema/);
    const gaps = await api.allItems(opId, "verdict=would-hold-gap");
    expect(gaps.map((i) => i.sequence)).toEqual([4, 5, 6]);

    // Confirm: the numbers the person saw, and no other.
    const first = dry.body;
    const noCheck = await api.confirm(opId, { expectedVersion: first.version, dryRunAt: first.dryRun.at });
    expect(noCheck.status).toBe(400);
    expect(noCheck.body.error.issues[0].path).toBe("checkDone");
    await new Promise((r) => setTimeout(r, 5));
    const second = (await api.dryRun(opId)).body;
    expect(second.dryRun.at).not.toBe(first.dryRun.at);
    for (const expectedVersion of [first.version, second.version]) {
      const stale = await api.confirm(opId, { expectedVersion, dryRunAt: first.dryRun.at, checkDone: true });
      expect(stale.status, JSON.stringify(stale.body)).toBe(409);
      expect(stale.body.error.code).toBe("dry-run-stale");
    }
    const wrongVersion = await api.confirm(opId, {
      expectedVersion: second.version + 5,
      dryRunAt: second.dryRun.at,
      checkDone: true,
    });
    expect(wrongVersion.status).toBe(409);
    expect(wrongVersion.body.error.code).toBe("stale-version");
    expect((await api.view(opId)).state).toBe("planned");

    const confirmed = await api.confirm(opId, {
      expectedVersion: second.version,
      dryRunAt: second.dryRun.at,
      checkDone: true,
    });
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    expect(confirmed.body).toMatchObject({ state: "running", confirmedBy: expect.stringMatching(/^token:owner-/) });
    expect(confirmed.body.controls).toEqual(["pause", "abort"]);
    const log = await logOf(opId);
    expect(log.filter((e) => e.action === "operation.confirmed")).toEqual([
      expect.objectContaining({ details: { operationId: opId, dryRun: second.dryRun } }),
    ]);

    // Wrong state now.
    for (const res of [
      await api.dryRun(opId),
      await api.confirm(opId, { expectedVersion: confirmed.body.version, dryRunAt: second.dryRun.at, checkDone: true }),
      await api.control("resume", opId, "go"),
    ]) {
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe("not-allowed");
    }

    // Dispatch: refused records are skipped, never overridden.
    const done = await dispatchUntil(async () => {
      const v = await api.view(opId);
      return v.progress.byState.pending === undefined ? v : undefined;
    });
    expect(done.progress.byState).toEqual({ dispatched: 12, skipped: 2 });
    const skipped = await api.allItems(opId, "state=skipped");
    expect(skipped.map((i) => i.reviewId).sort()).toEqual([ids[11]!, unknownEffect!].sort());
    expect(skipped.find((i) => i.reviewId === ids[11])!.detail).toMatch(/^stale-version: /);
    expect(skipped.find((i) => i.reviewId === unknownEffect)!.detail).toMatch(/^not-allowed: /);
    expect(
      (
        await sql(`SELECT count(*)::int AS n FROM replays WHERE review_id = ANY($1::uuid[])`, [
          [ids[11], unknownEffect],
        ])
      )[0].n,
    ).toBe(0);
    expect(await versionOf(ids[11]!), "the noted record is untouched").toBe(2);
  });

  it("refuses to confirm without a dry run (409 dry-run-required)", async () => {
    const [id] = await reportGaps([envelope(KIND, `inv-${newTag()}`, 2)], `nodry-${newTag()}`);
    const created = await api.create({ action: "replay", reason: "r", selection: { type: "ids", ids: [id] } });
    expect(created.body.controls, "no confirm before a dry run").not.toContain("confirm");
    const res = await api.confirm(created.body.id, {
      expectedVersion: created.body.version,
      dryRunAt: new Date().toISOString(),
      checkDone: true,
    });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("dry-run-required");
  });
});

describe("controls", () => {
  it("pause, resume and abort only from the states that allow them; an aborted operation leaves its records as they were", async () => {
    const ids = await reportGaps(
      [2, 2, 2].map((n) => envelope(KIND, `inv-${newTag()}`, n)),
      `ctl-${newTag()}`,
    );
    const created = await api.create({ action: "replay", reason: "r", selection: { type: "ids", ids } });
    const id = created.body.id as string;
    for (const control of ["pause", "resume"] as const) {
      const res = await api.control(control, id, "why");
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({
        code: "not-allowed",
        message: `cannot ${control} an operation that is planned`,
      });
    }
    const missingReason = await api.control("abort", id, " ");
    expect(missingReason.status).toBe(400);
    expect(missingReason.body.error.issues[0].path).toBe("reason");

    const aborted = await api.control("abort", id, "wrong selection");
    expect(aborted.status).toBe(200);
    expect(aborted.body).toMatchObject({
      state: "aborted",
      controls: [],
      progress: { byState: { "not-dispatched": 3 } },
    });
    expect(aborted.body.finishedAt).not.toBeNull();
    expect(await Promise.all(ids.map(versionOf))).toEqual([1, 1, 1]);
    for (const control of ["pause", "resume", "abort"] as const) {
      expect((await api.control(control, id, "again")).status).toBe(409);
    }
    expect((await api.dryRun(id)).status).toBe(409);
    const log = await logOf(id);
    expect(log.at(-1)).toMatchObject({
      action: "operation.aborted",
      reason: "wrong selection",
      details: { operationId: id, fromState: "planned", withdrawn: 0 },
    });
  });

  it("lists operations newest first, by state, with a cursor", async () => {
    const [id] = await reportGaps([envelope(KIND, `inv-${newTag()}`, 2)], `list-${newTag()}`);
    const a = (await api.create({ action: "note", reason: "a", selection: { type: "ids", ids: [id] } })).body.id;
    const b = (await api.create({ action: "note", reason: "b", selection: { type: "ids", ids: [id] } })).body.id;
    await api.control("abort", a, "not needed");
    const token = await api.token("auditor");
    const page1 = await call(listRoute, { token, path: "/api/v1/operations?limit=1" });
    expect(page1.status).toBe(200);
    expect(page1.body.items.map((o: { id: string }) => o.id)).toEqual([b]);
    const page2 = await call(listRoute, { token, path: `/api/v1/operations?limit=1&cursor=${page1.body.nextCursor}` });
    expect(page2.body.items.map((o: { id: string }) => o.id)).toEqual([a]);
    const aborted = await call(listRoute, { token, path: "/api/v1/operations?state=aborted&limit=500" });
    expect(aborted.body.items.map((o: { id: string }) => o.id)).toContain(a);
    expect(aborted.body.items.map((o: { id: string }) => o.id)).not.toContain(b);
    const bad = await call(listRoute, { token, path: "/api/v1/operations?state=sleeping" });
    expect(bad.status).toBe(400);
    expect(bad.body.error.issues[0].path).toBe("state");
  });

  it("an item cursor past any position answers an empty page, and an id in capitals names the same operation", async () => {
    const [id] = await reportGaps([envelope(KIND, `inv-${newTag()}`, 2)], `case-${newTag()}`);
    const op = (await api.create({ action: "note", reason: "case", selection: { type: "ids", ids: [id] } })).body.id;
    const huge = Buffer.from("i:9223372036854775807").toString("base64url");
    const far = await api.items(op, `cursor=${huge}`);
    expect(far.status, JSON.stringify(far.body)).toBe(200);
    expect(far.body.items).toEqual([]);
    const upper = op.toUpperCase();
    const aborted = await api.control("abort", upper, "spelled in capitals");
    expect(aborted.status).toBe(200);
    const entries = (await api.log(op)).body.items.map((e: { action: string }) => e.action);
    expect(entries).toContain("operation.aborted");
    const viaAudit = await call((await import("@/app/api/v1/audit/route")).GET, {
      token: await api.token("auditor"),
      path: `/api/v1/audit?operationId=${upper}&action=operation.aborted`,
    });
    expect(viaAudit.body.items).toHaveLength(1);
  });
});

describe("cancel and note operations", () => {
  it("a cancel operation cancels each effect as the single-record action does, refusing an applied one, and completes", async () => {
    const cause = `cancel-${newTag()}`;
    const keys = [0, 1, 2].map(() => `inv-${newTag()}`);
    await setLast(keys[2]!, 2);
    await journal(`${keys[2]}:reminder-2`, "applied");
    const ids = await reportGaps(
      keys.map((k) => envelope(KIND, k, 2)),
      cause,
    );
    const { id } = await api.start({
      action: "cancel",
      reason: "customer closed the account",
      selection: { type: "group", group: { kind: KIND, reason: "sequence-gap", errorClass: cause } },
    });
    const dry = await api.allItems(id);
    expect(dry.map((i) => i.verdict)).toEqual(["would-cancel", "would-cancel", "effect-applied"]);
    const done = await dispatchUntil(async () => {
      const v = await api.view(id);
      return v.state === "completed" ? v : undefined;
    });
    expect(done.progress.byState).toEqual({ done: 2, skipped: 1 });
    expect(done.autoPause).toBeNull();
    const records = await sql(
      `SELECT id::text, status::text FROM review_records WHERE id = ANY($1::uuid[]) ORDER BY seq`,
      [ids],
    );
    expect(records.map((r) => r.status)).toEqual(["cancelled", "cancelled", "open"]);
    const journals = await sql(
      `SELECT effect_key, state::text FROM effect_journal WHERE effect_key = ANY($1) ORDER BY effect_key`,
      [keys.map((k) => `${k}:reminder-2`)],
    );
    expect(new Map(journals.map((j) => [j.effect_key, j.state]))).toEqual(
      new Map([
        [`${keys[0]}:reminder-2`, "cancelled"],
        [`${keys[1]}:reminder-2`, "cancelled"],
        [`${keys[2]}:reminder-2`, "applied"],
      ]),
    );
    const skipped = (await api.allItems(id, "state=skipped"))[0]!;
    expect(skipped.detail).toMatch(/^effect-applied: /);
    const log = await logOf(id);
    expect(log.filter((e) => e.action === "review.cancel").map((e) => e.review_id)).toEqual(ids.slice(0, 2));
    expect(log.at(-1)).toMatchObject({ action: "operation.completed", actor: "system:operations" });
  });

  it("a note operation by support notes every record on its version of now, and completes", async () => {
    const ids = await reportGaps(
      [2, 2].map((n) => envelope(KIND, `inv-${newTag()}`, n)),
      `note-${newTag()}`,
    );
    const created = await api.create(
      { action: "note", reason: "checked with billing", selection: { type: "ids", ids } },
      "support",
    );
    const opId = created.body.id as string;
    await act(ids[0]!, { action: "note", reason: "meanwhile" });
    const dry = await api.dryRun(opId, "support");
    expect(dry.body.dryRun.counts).toEqual({ "would-note": 2 });
    const confirmed = await api.confirm(
      opId,
      { expectedVersion: dry.body.version, dryRunAt: dry.body.dryRun.at, checkDone: true },
      "support",
    );
    expect(confirmed.status).toBe(200);
    const done = await dispatchUntil(async () => {
      const v = await api.view(opId);
      return v.state === "completed" ? v : undefined;
    });
    expect(done.progress.byState).toEqual({ done: 2 });
    const history = await sql(
      `SELECT review_id::text, actor, reason, details FROM review_history WHERE action = 'note' AND reason = 'checked with billing'`,
    );
    expect(history.map((h) => h.review_id).sort()).toEqual([...ids].sort());
    expect(history[0]!.details).toEqual({ operationId: opId });
    expect(await Promise.all(ids.map(versionOf))).toEqual([3, 2]);
  });
});
