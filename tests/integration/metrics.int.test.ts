import { describe, expect, it } from "vitest";
import { GET as metrics } from "@/app/api/metrics/route";
import { POST as report } from "@/app/api/v1/reviews/route";
import { confirmOperation, dryRunOperation } from "@/lib/operations/control";
import { createOperation } from "@/lib/operations/create";
import { getOperation } from "@/lib/operations/view";
import { tokenFor } from "../support/http";
import { setupTestDatabase } from "../support/database";

setupTestDatabase();

async function scrape(token?: string) {
  const response = await metrics(
    new Request("http://localhost/api/metrics", { headers: token ? { authorization: `Bearer ${token}` } : {} }),
    { params: Promise.resolve({}) },
  );
  return { status: response.status, type: response.headers.get("content-type"), text: await response.text() };
}

describe("GET /api/metrics", () => {
  it("serves Prometheus text to any token: open records by category and reason, oldest age, actions, replays", async () => {
    const consumer = await tokenFor("consumer");
    for (const [category, reason] of [
      ["sequence-gap", "sequence-gap"],
      ["sequence-gap", "sequence-gap"],
      ["manual-review", "invalid-payload"],
    ]) {
      const created = await report(
        new Request("http://localhost/api/v1/reviews", {
          method: "POST",
          headers: { authorization: `Bearer ${consumer}`, "content-type": "application/json" },
          body: JSON.stringify({
            category,
            reason,
            requiredCheck: "look",
            attempts: 1,
            message: { id: `m-${Math.random()}` },
          }),
        }),
        { params: Promise.resolve({}) },
      );
      expect(created.status).toBe(201);
    }
    const result = await scrape(await tokenFor("auditor"));
    expect(result.status).toBe(200);
    expect(result.type).toMatch(/^text\/plain/);
    expect(result.text).toContain('review_console_open_records{category="sequence-gap",reason="sequence-gap"} 2');
    expect(result.text).toContain('review_console_open_records{category="manual-review",reason="invalid-payload"} 1');
    expect(result.text).toMatch(/review_console_oldest_open_age_seconds \d/);
    expect(result.text).toContain('review_console_actions_total{action="review.reported"} 3');
    expect((await scrape(consumer)).status).toBe(200);
  });

  it("counts bulk operations by state and the records they have not dispatched yet", async () => {
    const owner = { kind: "user", id: "o", label: "user:metrics-owner@test", role: "owner" } as const;
    const reason = `metrics-${Math.random()}`;
    const consumer = await tokenFor("consumer");
    for (let i = 0; i < 3; i++) {
      const created = await report(
        new Request("http://localhost/api/v1/reviews", {
          method: "POST",
          headers: { authorization: `Bearer ${consumer}`, "content-type": "application/json" },
          body: JSON.stringify({
            category: "manual-review",
            reason,
            requiredCheck: "look",
            attempts: 1,
            message: { id: `m-${Math.random()}` },
          }),
        }),
        { params: Promise.resolve({}) },
      );
      expect(created.status).toBe(201);
    }
    const id = await createOperation(
      { action: "note", reason: "metrics", selection: { type: "filter", filter: { reason } } },
      owner,
    );
    expect((await scrape(await tokenFor("auditor"))).text).toContain('review_console_operations{state="planned"} 1');
    await dryRunOperation(id, owner);
    const op = await getOperation(id, "owner");
    await confirmOperation(id, { expectedVersion: op!.version, dryRunAt: op!.dryRun!.at, checkDone: true }, owner);
    const text = (await scrape(await tokenFor("auditor"))).text;
    expect(text).toContain('review_console_operations{state="running"} 1');
    expect(text).toContain('review_console_operation_records_pending{state="running"} 3');
  });

  it("refuses a request without a token", async () => {
    expect((await scrape()).status).toBe(401);
  });
});
