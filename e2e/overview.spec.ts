import { watchConsole } from "./fixtures";
import { expect, invoiceReminder, redisSource, test, uniqueTag } from "./records";

// The overview in Chromium: owners and support land on it, its arrivals chart is drawn (uPlot,
// a canvas, loaded in the browser only) under the page's Content-Security-Policy without a
// console error, and the chart's table alternative carries the API's numbers.

interface OverviewAnswer {
  arrivals: { total: number; byKind: { key: string; total: number }[] };
  resolution: { causes: { kind: string | null; finished: number; p50Seconds: number }[] };
}

const numberText = (n: number) => new Intl.NumberFormat("en-US").format(n);

test("an owner lands on the overview: chart drawn, its table, time to resolution, no CSP error", async ({
  page,
  loginAs,
  report,
  sql,
}) => {
  const errors = await watchConsole(page);
  const tag = uniqueTag();
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    ids.push(
      await report({
        category: "manual-review",
        reason: "invalid-payload",
        requiredCheck: `correct payload.invoiceId of message msg-${tag}-${i}`,
        source: redisSource(tag),
        message: { ...invoiceReminder(`${tag}-${i}`), kind: `overview.${tag}` },
      }),
    );
  }
  // One of them resolved after ten minutes, for the time to resolution.
  await sql(
    `UPDATE review_records SET status = 'resolved', first_seen_at = now() - interval '10 minutes' WHERE id = $1`,
    [ids[0]],
  );

  await loginAs("owner");
  await page.goto("/");
  await expect(page).toHaveURL(/\/overview$/);
  await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
  const nav = page.getByRole("navigation", { name: "Main" });
  await expect(nav.getByRole("link", { name: "Overview" })).toHaveAttribute("aria-current", "page");

  // The chart: uPlot's canvas inside the image whose name is the chart's text alternative.
  const chart = page.getByRole("img", { name: /^Records arriving in the last 24 hours, by hour, by category/ });
  await expect(chart.locator("canvas").first()).toBeVisible();
  // Pointing at the latest hour reads its counts out under the chart (this test's three included).
  const readout = page.getByTestId("arrivals-readout");
  await expect(readout).toHaveText("Point at the chart for a bucket's counts.");
  const box = (await chart.locator(".u-over").boundingBox())!;
  await page.mouse.move(box.x + box.width - 2, box.y + box.height / 2);
  await expect(readout).toHaveText(/^\d\d-\d\d \d\d:00 \(UTC\): .*manual-review [1-9]/);

  const answer = await page.request.get("/api/v1/overview?window=24h");
  expect(answer.status()).toBe(200);
  const body = (await answer.json()) as OverviewAnswer;
  expect(body.arrivals.byKind.find((s) => s.key === `overview.${tag}`)?.total).toBe(3);

  // The table alternative: its totals row holds the window's total.
  const arrivals = page.getByRole("region", { name: "Arrivals" });
  await arrivals.getByText("The chart as a table").click();
  const table = arrivals.getByRole("table", { name: "Records arriving per hour (UTC) by category" });
  await expect(table).toBeVisible();
  await expect(table.getByRole("row").last().getByRole("cell").last()).toHaveText(numberText(body.arrivals.total));
  await expect(table.getByRole("row")).toHaveCount(24 + 2);

  // By kind: the chart and its table follow.
  await arrivals.getByRole("button", { name: "Kind", exact: true }).click();
  await expect(arrivals.getByRole("table", { name: "Records arriving per hour (UTC) by kind" })).toBeVisible();
  await expect(
    page
      .getByRole("img", { name: /by kind: / })
      .locator("canvas")
      .first(),
  ).toBeVisible();

  // Time to resolution: the resolved record's cause, ten minutes.
  const resolution = page.getByRole("region", { name: "Time to resolution" });
  await expect(resolution.getByRole("row").filter({ hasText: `overview.${tag}` })).toContainText("10 min");

  // The window: 7 days by day, in the URL.
  await page.getByRole("group", { name: "Window" }).getByRole("button", { name: "7 days" }).click();
  await expect(page).toHaveURL(/\/overview\?window=7d$/);
  await expect(arrivals.getByRole("table", { name: "Records arriving per day (UTC) by kind" })).toBeVisible();
  await expect(
    page
      .getByRole("img", { name: /^Records arriving in the last 7 days, by day/ })
      .locator("canvas")
      .first(),
  ).toBeVisible();

  await expect(page.getByRole("region", { name: "Signed checkpoint" })).toBeVisible();
  await page.waitForLoadState("networkidle");
  expect(errors, "console errors and CSP violations").toEqual([]);
});

test("support lands on the overview too; an auditor on the queue", async ({ page, loginAs }) => {
  await loginAs("support");
  await page.goto("/");
  await expect(page).toHaveURL(/\/overview$/);
  await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();

  await page.context().clearCookies();
  await loginAs("auditor");
  await page.goto("/");
  await expect(page).toHaveURL(/\/reviews$/);
});
