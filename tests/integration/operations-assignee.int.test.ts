/**
 * A bulk operation on a filter with `assignee` (the queue's "Mine", ADR 0028): `me` is the person
 * creating it, kept as their id in the stored selection and the decision log, so the operation
 * says whose records it took whoever reads it; `none` and a person's id select as the list does;
 * `me` from a token and a malformed assignee are 400s naming the field that create nothing. The
 * new-operation form's count reads the same condition.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { POST as createRoute } from "@/app/api/v1/operations/route";
import { countSelection } from "@/lib/operations";
import { createPerson, type Person, signedIn } from "../support/auth";
import { setupTestDatabase, withClient } from "../support/database";
import { call } from "../support/http";
import { envelope, newTag, operationsApi, reportGaps } from "../support/operations";

const database = setupTestDatabase();
const sql = <T = any>(text: string, params: unknown[] = []) =>
  withClient(database.current.url, async (c) => (await c.query(text, params)).rows as T[]);
const api = operationsApi();

/** Three records of a kind of their own: assigned to `mine`, to `other`, to nobody. */
async function threeRecords(mine: Person, other: Person) {
  const kind = `assignee.${newTag()}`;
  const key = `inv-${newTag()}`;
  const [toMe, toOther, unassigned] = await reportGaps(
    [2, 3, 4].map((n) => envelope(kind, `${key}-${n}`, n)),
    `cause-${newTag()}`,
  );
  await sql(`UPDATE review_records SET assignee_id = $2 WHERE id = $1`, [toMe, mine.id]);
  await sql(`UPDATE review_records SET assignee_id = $2 WHERE id = $1`, [toOther, other.id]);
  return { kind, toMe: toMe!, toOther: toOther!, unassigned: unassigned! };
}

const noteOn = (filter: Record<string, string>) => ({
  action: "note",
  reason: "asked the provider about these",
  selection: { type: "filter", filter },
});

async function frozenIds(operationId: string): Promise<string[]> {
  const rows = await sql<{ id: string }>(
    `SELECT review_id::text AS id FROM bulk_operation_items WHERE operation_id = $1 ORDER BY position`,
    [operationId],
  );
  return rows.map((r) => r.id);
}

const operationCount = async () => (await sql<{ n: number }>(`SELECT count(*)::int AS n FROM bulk_operations`))[0]!.n;

let me: Person & { cookie: string };
let colleague: Person;
beforeAll(async () => {
  me = await signedIn("owner", "mine");
  colleague = await createPerson("support", "colleague");
});

describe("a bulk operation on a filter with assignee", () => {
  it("assignee=me takes the signed-in creator's records and keeps their id in the selection and the log", async () => {
    const r = await threeRecords(me, colleague);
    const created = await call(createRoute, {
      headers: { cookie: me.cookie },
      path: "/api/v1/operations",
      body: noteOn({ kind: r.kind, assignee: "me" }),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.total).toBe(1);
    expect(await frozenIds(created.body.id)).toEqual([r.toMe]);
    // Stored and answered with the id: whoever reads the operation sees whose records it took.
    expect(created.body.selection).toEqual({ type: "filter", filter: { kind: r.kind, assignee: me.id } });
    const read = await api.get(created.body.id, "auditor");
    expect(read.body.selection.filter.assignee).toBe(me.id);
    const [logged] = await sql<{ details: any; actor: string }>(
      `SELECT details, actor FROM decision_log WHERE action = 'operation.created' AND details->>'operationId' = $1`,
      [created.body.id],
    );
    expect(logged?.actor).toBe(`user:${me.email}`);
    expect(logged?.details.selection).toEqual({ type: "filter", filter: { kind: r.kind, assignee: me.id } });
  });

  it("assignee=none and a person's id select as the list does (an id in any case)", async () => {
    const r = await threeRecords(me, colleague);
    const none = await api.create(noteOn({ kind: r.kind, assignee: "none" }));
    expect(none.status, JSON.stringify(none.body)).toBe(201);
    expect(await frozenIds(none.body.id)).toEqual([r.unassigned]);

    const byId = await api.create(noteOn({ kind: r.kind, assignee: colleague.id.toUpperCase() }));
    expect(byId.status, JSON.stringify(byId.body)).toBe(201);
    expect(await frozenIds(byId.body.id)).toEqual([r.toOther]);
    expect(byId.body.selection.filter.assignee).toBe(colleague.id);

    // Mine alone is a filter too (the queue's "Bulk action on this filter" with only Mine ticked).
    const alone = await call(createRoute, {
      headers: { cookie: me.cookie },
      path: "/api/v1/operations",
      body: noteOn({ assignee: "me", status: "open" }),
    });
    expect(alone.status, JSON.stringify(alone.body)).toBe(201);
    expect(await frozenIds(alone.body.id)).toContain(r.toMe);
    expect(await frozenIds(alone.body.id)).not.toContain(r.toOther);
  });

  it("refuses assignee=me from a token and a malformed assignee with a 400 naming the field, creating nothing", async () => {
    const r = await threeRecords(me, colleague);
    const before = await operationCount();
    const fromToken = await api.create(noteOn({ kind: r.kind, assignee: "me" }));
    expect(fromToken.status).toBe(400);
    expect(fromToken.body.error.issues).toEqual([
      { path: "selection.filter.assignee", message: "me needs a signed-in person; a token names the person by id" },
    ]);
    for (const assignee of ["someone", "", "not-a-uuid-0000"]) {
      const bad = await api.create(noteOn({ kind: r.kind, assignee }));
      expect(bad.status, assignee).toBe(400);
      expect(
        bad.body.error.issues.map((i: { path: string }) => i.path),
        assignee,
      ).toContain("selection.filter.assignee");
    }
    expect(await operationCount()).toBe(before);
  });

  it("the new-operation form's count reads `me` as the person reading it", async () => {
    const r = await threeRecords(me, colleague);
    const selection = { type: "filter" as const, filter: { kind: r.kind, assignee: "me" } };
    expect(await countSelection(selection, { id: me.id })).toEqual({ count: 1, tooLarge: false });
    expect(await countSelection(selection, { id: colleague.id })).toEqual({ count: 1, tooLarge: false });
    expect(await countSelection({ type: "filter", filter: { kind: r.kind, assignee: "none" } }, null)).toEqual({
      count: 1,
      tooLarge: false,
    });
    // No person to mean: not a selection the API would take.
    expect(await countSelection(selection, null)).toBeNull();
  });
});
