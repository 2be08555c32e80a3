/**
 * deploy/prometheus/alerts.yml is valid (`promtool check rules`) and each rule fires on a series
 * that should fire it and stays quiet on one that should not (`promtool test rules` runs
 * deploy/prometheus/alerts.test.yml).
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { promtool, promtoolAvailable } from "../support/promtool";

const DIR = path.resolve(import.meta.dirname, "../../deploy/prometheus");
const available = promtoolAvailable("tests/integration/alert-rules.int.test.ts");

describe.skipIf(!available)("deploy/prometheus alert rules", () => {
  it("pass `promtool check rules`: five rules", async () => {
    const checked = await promtool(["check", "rules", path.join(DIR, "alerts.yml")]);
    expect(checked, `${checked.stdout}${checked.stderr}`).toMatchObject({ code: 0 });
    expect(checked.stdout).toContain("SUCCESS: 5 rules found");
  });

  it("pass their unit tests, `promtool test rules alerts.test.yml`", async () => {
    const tested = await promtool(["test", "rules", path.join(DIR, "alerts.test.yml")]);
    expect(tested, `${tested.stdout}${tested.stderr}`).toMatchObject({ code: 0 });
    expect(tested.stdout).toContain("SUCCESS");
  });
});
