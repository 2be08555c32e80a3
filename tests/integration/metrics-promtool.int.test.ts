/**
 * The real scrape of GET /api/metrics, after some activity (every metric family has samples),
 * passes Prometheus's own checker: `promtool check metrics` (names, types, `_total` only on
 * counters, units, help text). The old gauge `review_console_actions_total` failed it.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { GET as metrics } from "@/app/api/metrics/route";
import { POST as act } from "@/app/api/v1/reviews/[id]/actions/route";
import { GET as detail } from "@/app/api/v1/reviews/[id]/route";
import { POST as report } from "@/app/api/v1/reviews/route";
import { type Actor } from "@/lib/access";
import { confirmOperation, dryRunOperation, createOperation, getOperation } from "@/lib/operations";
import { setupTestDatabase } from "../support/database";
import { call, tokenFor } from "../support/http";
import { promtool, promtoolAvailable } from "../support/promtool";

setupTestDatabase();
const available = promtoolAvailable("tests/integration/metrics-promtool.int.test.ts");
const owner: Actor = { kind: "user", id: "promtool-owner", label: "user:promtool@test", role: "owner" };

describe.skipIf(!available)("GET /api/metrics and promtool", () => {
  it("answers text that `promtool check metrics` accepts (exit 0), with every family present", async () => {
    const consumer = await tokenFor("consumer");
    const ownerToken = await tokenFor("owner");
    const reason = 'promtool "quoted" \\ reason';
    const ids: string[] = [];
    for (const category of ["manual-review", "effect-result-unknown", "sequence-gap"]) {
      const created = await call(report, {
        token: consumer,
        body: { category, reason, requiredCheck: "look", attempts: 1, message: { id: `p-${Math.random()}` } },
      });
      expect(created.status).toBe(201);
      ids.push(created.body.id);
    }
    await call(act, {
      token: ownerToken,
      params: { id: ids[0]! },
      body: { action: "replay", expectedVersion: 1, reason: "promtool", checkDone: true },
    });
    await call(detail, { token: ownerToken, path: `/api/v1/reviews/${ids[1]}`, params: { id: ids[1]! } });
    await call(detail, { token: ownerToken, path: "/api/v1/reviews/not-a-uuid", params: { id: "not-a-uuid" } });
    const operation = await createOperation(
      { action: "note", reason: "promtool", selection: { type: "filter", filter: { reason } } },
      owner,
    );
    await dryRunOperation(operation, owner);
    const op = await getOperation(operation, "owner");
    await confirmOperation(
      operation,
      { expectedVersion: op!.version, dryRunAt: op!.dryRun!.at, checkDone: true },
      owner,
    );

    const response = await metrics(
      new Request("http://localhost/api/metrics", { headers: { authorization: `Bearer ${ownerToken}` } }),
      { params: Promise.resolve({}) },
    );
    expect(response.status).toBe(200);
    const text = await response.text();
    for (const family of [
      "review_console_open_records",
      "review_console_oldest_open_age_seconds",
      "review_console_decisions_total",
      "review_console_replays",
      "review_console_operations",
      "review_console_operations_auto_paused",
      "review_console_operation_records_pending",
      "review_console_http_request_duration_seconds",
      "review_console_process_cpu_seconds_total",
    ]) {
      expect(text, family).toMatch(new RegExp(`^${family}(_bucket)?(\\{[^}]*\\})? \\S+$`, "m"));
    }
    const checked = await promtool(["check", "metrics"], text);
    expect(checked, `${checked.stdout}${checked.stderr}`).toMatchObject({ code: 0 });

    // Every console metric the alert rules use is one this scrape serves (a typo never fires).
    const rules = readFileSync(path.resolve(import.meta.dirname, "../../deploy/prometheus/alerts.yml"), "utf8");
    const used = new Set(rules.match(/\breview_console_[a-z_]+/g));
    expect(used.size).toBeGreaterThan(0);
    for (const name of used) expect(text, name).toMatch(new RegExp(`^# TYPE ${name} `, "m"));
  });

  it("and promtool does reject what the console used to serve (a gauge named _total)", async () => {
    const old = [
      "# HELP review_console_actions_total Decisions taken on review records, by action",
      "# TYPE review_console_actions_total gauge",
      'review_console_actions_total{action="review.reported"} 3',
      "",
    ].join("\n");
    const checked = await promtool(["check", "metrics"], old);
    expect(checked.code).not.toBe(0);
    expect(`${checked.stdout}${checked.stderr}`).toContain('non-counter metrics should not have "_total" suffix');
  });
});
