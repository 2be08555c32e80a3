import { describe, expect, it } from "vitest";
import { POST as verdict } from "@/app/api/v1/reviews/[id]/verdict/route";
import { POST as report } from "@/app/api/v1/reviews/route";
import { call, tokenFor } from "../support/http";
import { setupTestDatabase, withClient } from "../support/database";

// The verdict a single replay gets before a person confirms it: the bulk dry run's judge on one
// record, so "would be held again" and "would apply" mean here what they mean in an operation.

const database = setupTestDatabase();
const sql = (text: string, params: unknown[] = []) =>
  withClient(database.current.url, async (c) => (await c.query(text, params)).rows);

let n = 0;
async function record(category: string, reason: string, overrides: Record<string, unknown> = {}) {
  n += 1;
  const tag = `${n}-${Math.random().toString(36).slice(2, 8)}`;
  const message = {
    id: `msg-verdict-${tag}`,
    kind: "invoice.reminder",
    effectKey: `invoice-${tag}:reminder:4`,
    sequenceKey: `invoice-${tag}`,
    sequence: 4,
    payload: { invoiceId: tag, schema: "2021-03" },
    ...overrides,
  };
  const created = await call(report, {
    token: await tokenFor("consumer"),
    body: { category, reason, requiredCheck: "look at it", attempts: 1, message },
  });
  expect(created.status).toBe(201);
  return { id: created.body.id as string, message };
}

async function judge(id: string, body: Record<string, unknown>, role: "owner" | "support" = "owner") {
  return call(verdict, { token: await tokenFor(role), params: { id }, body });
}

describe("POST /api/v1/reviews/{id}/verdict", () => {
  it("a gap whose predecessors are missing would be held again, naming the missing messages", async () => {
    const r = await record("sequence-gap", "sequence-gap");
    const answer = await judge(r.id, { action: "replay" });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      action: "replay",
      version: 1,
      verdict: "would-hold-gap",
      detail: `find messages 1–3 of ${r.message.sequenceKey}`,
    });
  });

  it("would apply once the key has applied its predecessors, and be suppressed once the effect exists", async () => {
    const r = await record("sequence-gap", "sequence-gap");
    await sql(`INSERT INTO sequence_state (sequence_key, last_sequence, updated_at) VALUES ($1, 3, now())`, [
      r.message.sequenceKey,
    ]);
    expect((await judge(r.id, { action: "replay" })).body).toMatchObject({ verdict: "would-apply", detail: null });
    await sql(
      `INSERT INTO effect_journal (effect_key, state, started_at, updated_at) VALUES ($1, 'applied', now(), now())`,
      [r.message.effectKey],
    );
    expect((await judge(r.id, { action: "replay" })).body).toMatchObject({
      verdict: "would-suppress",
      detail: "effect-already-recorded",
    });
  });

  it("an invalid payload is invalid as it stands, and a correction is judged as the action builds it", async () => {
    const r = await record("manual-review", "invalid-payload", {
      sequence: 1,
      payload: { schema: "2021-03", invoiceId: 417 },
    });
    expect((await judge(r.id, { action: "replay" })).body).toMatchObject({
      verdict: "invalid",
      detail: expect.stringContaining("invalid-payload"),
    });
    const fixed = await judge(r.id, {
      action: "correct-and-replay",
      payload: { schema: "2021-03", invoiceId: "417" },
    });
    expect(fixed.body).toMatchObject({ action: "correct-and-replay", verdict: "would-apply" });
    const stillWrong = await judge(r.id, { action: "correct-and-replay", payload: { schema: "2021-03" } });
    expect(stillWrong.body).toMatchObject({ verdict: "invalid", detail: expect.stringContaining("invalid-payload") });
  });

  it("an effect-result-unknown record is not eligible for a replay; an unknown id is a 404; a bad action a 400", async () => {
    const r = await record("effect-result-unknown", "effect-result-unknown", { sequence: 1 });
    expect((await judge(r.id, { action: "replay" })).body).toMatchObject({ verdict: "not-eligible" });
    expect((await judge("00000000-0000-4000-8000-000000000000", { action: "replay" })).status).toBe(404);
    const bad = await judge(r.id, { action: "cancel" });
    expect(bad.status).toBe(400);
    expect(bad.body.error.issues[0].path).toBe("action");
  });
});
