import { render, screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { ArrivalsTable } from "./arrivals-table";
import { arrivalsSummary, formatDuration, type Overview, topSeries } from "./model";
import { ResolutionTable } from "./resolution-table";

// The charts are canvases; these tables and the chart's summary are what a screen reader (and a
// copy-paste) gets, so they must carry the very numbers of the API's answer.

const buckets = ["2026-12-01T10:00:00.000Z", "2026-12-01T11:00:00.000Z", "2026-12-01T12:00:00.000Z"];

describe("ArrivalsTable", () => {
  it("renders a row per bucket with each series' count and the totals", () => {
    render(
      <ArrivalsTable
        caption="Records arriving per hour (UTC) by category"
        buckets={buckets}
        bucket="hour"
        series={[
          { key: "manual-review", total: 1240, counts: [1000, 0, 240] },
          { key: "sequence-gap", total: 7, counts: [3, 4, 0] },
        ]}
      />,
    );
    const table = screen.getByRole("table", { name: "Records arriving per hour (UTC) by category" });
    const rows = within(table).getAllByRole("row");
    // Header, three buckets, the totals.
    expect(rows).toHaveLength(5);
    expect(
      within(rows[0]!)
        .getAllByRole("columnheader")
        .map((c) => c.textContent),
    ).toEqual(["Hour (UTC)", "manual-review", "sequence-gap", "Total"]);
    expect(within(rows[1]!).getByRole("rowheader")).toHaveTextContent("12-01 10:00");
    expect(
      within(rows[1]!)
        .getAllByRole("cell")
        .map((c) => c.textContent),
    ).toEqual(["1,000", "3", "1,003"]);
    expect(
      within(rows[2]!)
        .getAllByRole("cell")
        .map((c) => c.textContent),
    ).toEqual(["0", "4", "4"]);
    expect(
      within(rows[4]!)
        .getAllByRole("cell")
        .map((c) => c.textContent),
    ).toEqual(["1,240", "7", "1,247"]);
  });

  it("labels days by date", () => {
    render(
      <ArrivalsTable
        caption="days"
        buckets={["2026-11-30T00:00:00.000Z"]}
        bucket="day"
        series={[{ key: "email.send", total: 2, counts: [2] }]}
      />,
    );
    expect(screen.getByRole("columnheader", { name: "Day (UTC)" })).toBeInTheDocument();
    expect(screen.getByRole("rowheader", { name: "2026-11-30" })).toBeInTheDocument();
  });
});

describe("topSeries", () => {
  it("keeps the six largest series and sums the rest into one", () => {
    const series = Array.from({ length: 9 }, (_, i) => ({ key: `k${i}`, total: 20 - i, counts: [10 - i, 10] }));
    const top = topSeries(series, 2);
    expect(top.map((s) => s.key)).toEqual(["k0", "k1", "k2", "k3", "k4", "k5", "other (3)"]);
    expect(top[6]).toEqual({ key: "other (3)", counts: [4 + 3 + 2, 30], total: 39 });
  });
});

describe("ResolutionTable", () => {
  it("shows p50 and p95 per cause as durations, with the exact seconds as a tooltip", () => {
    render(
      <ResolutionTable
        resolution={{
          finished: 12,
          sampled: false,
          sampleLimit: 10_000,
          truncated: false,
          causes: [
            {
              kind: "card.charge",
              reason: "retry-limit",
              errorClass: "ETIMEDOUT",
              finished: 9,
              p50Seconds: 200,
              p95Seconds: 12_600,
            },
            {
              kind: null,
              reason: "invalid-contract",
              errorClass: null,
              finished: 3,
              p50Seconds: 40,
              p95Seconds: 90_000,
            },
          ],
        }}
      />,
    );
    const rows = screen.getAllByRole("row");
    expect(
      within(rows[1]!)
        .getAllByRole("cell")
        .map((c) => c.textContent),
    ).toEqual(["card.charge", "retry-limit", "ETIMEDOUT", "9", "3 min", "3 h 30 min"]);
    expect(
      within(rows[2]!)
        .getAllByRole("cell")
        .map((c) => c.textContent),
    ).toEqual(["(none)", "invalid-contract", "(none)", "3", "40 s", "1 d 1 h"]);
    expect(within(rows[1]!).getByText("3 h 30 min")).toHaveAttribute("title", "12600 s");
  });

  it("says so when nothing finished", () => {
    render(
      <ResolutionTable
        resolution={{ finished: 0, sampled: false, sampleLimit: 10_000, truncated: false, causes: [] }}
      />,
    );
    expect(screen.getByText("No record was resolved or cancelled in this window.")).toBeInTheDocument();
  });
});

describe("the chart's text alternative", () => {
  it("names the window, the total and each series' total", () => {
    const overview = {
      window: "7d",
      arrivals: {
        total: 1250,
        byCategory: [
          { key: "manual-review", total: 1000, counts: [] },
          { key: "sequence-gap", total: 250, counts: [] },
        ],
      },
    } as unknown as Overview;
    expect(arrivalsSummary(overview, "byCategory")).toBe(
      "Records arriving in the last 7 days, by day, by category: 1,250 in all; manual-review 1,000, sequence-gap 250.",
    );
    expect(formatDuration(59)).toBe("59 s");
  });
});
