/**
 * A consumer token scoped to a domain reports and claims only that domain's kinds (ADR 0029):
 * the report of another domain's kind (or of a kind in no domain) is a 403 naming
 * `message.kind`, logged as a refused authorization; a message with no usable kind is accepted;
 * a batch refuses item by item; a claim hands out only replays of the domain's kinds.
 */
import { describe, expect, it } from "vitest";
import { POST as act } from "@/app/api/v1/reviews/[id]/actions/route";
import { POST as claim } from "@/app/api/v1/replays/claim/route";
import { POST as reportBatch } from "@/app/api/v1/reviews/batch/route";
import { POST as report } from "@/app/api/v1/reviews/route";
import { CLI_ACTOR } from "@/lib/access";
import { createApiToken } from "@/lib/auth";
import { createDomain } from "@/lib/domains";
import { call, tokenFor } from "../support/http";
import { setupTestDatabase, withClient } from "../support/database";
import { newTag } from "../support/operations";

const database = setupTestDatabase();
const sql = <T = any>(text: string, params: unknown[] = []) =>
  withClient(database.current.url, async (c) => (await c.query(text, params)).rows as T[]);

/** Two domains of their own: `pay-<tag>` owns `card-<tag>.*`, `msg-<tag>` owns `mail-<tag>.*`. */
async function domains() {
  const tag = newTag();
  const pay = `pay-${tag}`;
  await createDomain({ name: pay, kinds: [`card-${tag}.*`] }, "test", CLI_ACTOR);
  await createDomain({ name: `msg-${tag}`, kinds: [`mail-${tag}.*`] }, "test", CLI_ACTOR);
  const scoped = (await createApiToken(`pay-worker-${tag}`, "consumer", "system:test", { domain: pay })).token;
  return { tag, pay, scoped, payKind: `card-${tag}.charge`, mailKind: `mail-${tag}.send`, looseKind: `loose-${tag}.x` };
}

let n = 0;
function reportBody(kind: unknown, extra: Record<string, unknown> = {}) {
  n += 1;
  const key = `key-${newTag()}`;
  return {
    category: "sequence-gap",
    reason: "sequence-gap",
    requiredCheck: "find the predecessor",
    attempts: 1,
    message: {
      id: `msg-${key}-${n}`,
      kind,
      effectKey: `${key}:1`,
      sequenceKey: key,
      sequence: 1,
      payload: {},
      ...extra,
    },
  };
}

const refusalsOf = (tokenName: string) =>
  sql(`SELECT reason, details FROM decision_log WHERE action = 'authorization.refused' AND actor = $1 ORDER BY seq`, [
    `token:${tokenName}`,
  ]);

describe("reports of a scoped token", () => {
  it("its domain's kinds are recorded; another domain's, or no domain's, are a 403 naming message.kind, logged", async () => {
    const d = await domains();
    const ok = await call(report, { token: d.scoped, body: reportBody(d.payKind) });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);

    for (const kind of [d.mailKind, d.looseKind]) {
      const refused = await call(report, { token: d.scoped, body: reportBody(kind) });
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe("outside-domain");
      expect(refused.body.error.issues[0].path).toBe("message.kind");
      expect(refused.body.error.message).toContain(kind);
      expect(refused.body.error.message).toContain(`domain ${d.pay} only`);
      expect(await sql(`SELECT 1 FROM review_records WHERE kind = $1`, [kind])).toEqual([]);
    }
    const refusals = await refusalsOf(`pay-worker-${d.tag}`);
    expect(refusals.length).toBeGreaterThanOrEqual(1);
    expect(refusals[0].details).toMatchObject({ permission: "reviews.report", rule: "domain", kind: d.mailKind });

    // No usable kind: it cannot be attributed; refusing it would strand the message.
    const noKind = await call(report, { token: d.scoped, body: reportBody("") });
    expect(noKind.status, JSON.stringify(noKind.body)).toBe(201);
  });

  it("an unscoped token reports any kind", async () => {
    const d = await domains();
    const global = await tokenFor("consumer");
    for (const kind of [d.payKind, d.mailKind, d.looseKind]) {
      expect((await call(report, { token: global, body: reportBody(kind) })).status).toBe(201);
    }
  });

  it("a kind moved into the domain is accepted at once (the pattern cache is dropped by the change)", async () => {
    const d = await domains();
    expect((await call(report, { token: d.scoped, body: reportBody(`later-${d.tag}.x`) })).status).toBe(403);
    const { updateDomain } = await import("@/lib/domains/manage");
    await updateDomain(d.pay, { kinds: [`card-${d.tag}.*`, `later-${d.tag}.*`] }, "test", CLI_ACTOR);
    expect((await call(report, { token: d.scoped, body: reportBody(`later-${d.tag}.x`) })).status).toBe(201);
  });

  it("a batch refuses item by item: the domain's items are recorded, the others answered with their 403", async () => {
    const d = await domains();
    const batch = await call(reportBatch, {
      token: d.scoped,
      body: { records: [reportBody(d.payKind), reportBody(d.mailKind), { nonsense: true }, reportBody(null)] },
    });
    expect(batch.status, JSON.stringify(batch.body)).toBe(200);
    expect(batch.body).toMatchObject({ recorded: 2, rejected: 2 });
    expect(batch.body.results.map((r: any) => r.status)).toEqual([201, 403, 400, 201]);
    expect(batch.body.results[1]).toMatchObject({
      index: 1,
      error: { code: "outside-domain", issues: [{ path: "message.kind" }] },
    });
    expect(await sql(`SELECT 1 FROM review_records WHERE kind = $1`, [d.mailKind])).toEqual([]);
    expect((await refusalsOf(`pay-worker-${d.tag}`)).length).toBeGreaterThanOrEqual(1);

    const global = await tokenFor("consumer");
    const all = await call(reportBatch, { token: global, body: { records: [reportBody(d.mailKind)] } });
    expect(all.body).toMatchObject({ recorded: 1, rejected: 0 });
  });
});

describe("claims of a scoped token", () => {
  it("hands out only replays of its domain's kinds; kinds= narrows within; an unscoped token takes the rest", async () => {
    const d = await domains();
    const owner = await tokenFor("owner");
    const global = await tokenFor("consumer");
    const ids: Record<string, string> = {};
    for (const kind of [d.payKind, `card-${d.tag}.refund`, d.mailKind, d.looseKind]) {
      const created = await call(report, { token: global, body: reportBody(kind) });
      expect(created.status).toBe(201);
      const replayed = await call(act, {
        token: owner,
        params: { id: created.body.id },
        body: { action: "replay", expectedVersion: 1, reason: "predecessor arrived", checkDone: true },
      });
      expect(replayed.status, JSON.stringify(replayed.body)).toBe(200);
      ids[kind] = created.body.id;
    }
    const allKinds = Object.keys(ids);

    const narrowed = await call(claim, {
      token: d.scoped,
      body: { consumer: "pay", kinds: [`card-${d.tag}.refund`, d.mailKind] },
    });
    expect(narrowed.status).toBe(200);
    expect(narrowed.body.items.map((i: any) => i.reviewId)).toEqual([ids[`card-${d.tag}.refund`]]);

    const scopedClaim = await call(claim, { token: d.scoped, body: { consumer: "pay", kinds: allKinds } });
    expect(scopedClaim.body.items.map((i: any) => i.reviewId)).toEqual([ids[d.payKind]]);

    const rest = await call(claim, { token: global, body: { consumer: "all", kinds: allKinds } });
    expect(rest.body.items.map((i: any) => i.reviewId).sort()).toEqual([ids[d.mailKind], ids[d.looseKind]].sort());
  });
});
