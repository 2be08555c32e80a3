import { render, screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { CauseGroupsTable } from "./cause-groups";
import type { CauseGroup } from "./model";

// The grouped view offers "Replay this cause…" only where a replay fits some of its records: a
// cause of effect-result-unknown records is answered by the provider, not by a replay.

const group = (reason: string, count: number, replayable: number): CauseGroup => ({
  kind: "payment.charge",
  reason,
  errorClass: "ETIMEDOUT",
  count,
  replayable,
  oldestFirstSeenAt: "2026-12-01T10:00:00.000Z",
  newestLastSeenAt: "2026-12-01T11:00:00.000Z",
});

function rowOf(reason: string) {
  return screen.getByRole("cell", { name: reason }).closest("tr")!;
}

describe("the grouped view's bulk action", () => {
  it("offers a replay only for a cause a replay fits", () => {
    render(
      <CauseGroupsTable
        groups={[group("effect-result-unknown", 18, 0), group("invalid-payload", 4, 4)]}
        loading={false}
        stale={false}
        now={Date.parse("2026-12-01T12:00:00.000Z")}
        onSelect={() => undefined}
        bulkAction="replay"
      />,
    );
    const unknown = within(rowOf("effect-result-unknown"));
    expect(unknown.queryByRole("link", { name: /Replay this cause/ })).toBeNull();
    expect(unknown.getByText("Replay does not fit")).toBeInTheDocument();
    const payload = within(rowOf("invalid-payload"));
    expect(payload.getByRole("link", { name: /Replay this cause/ })).toHaveAttribute(
      "href",
      expect.stringContaining("/operations/new"),
    );
  });

  it("a note fits every cause", () => {
    render(
      <CauseGroupsTable
        groups={[group("effect-result-unknown", 18, 0)]}
        loading={false}
        stale={false}
        now={Date.parse("2026-12-01T12:00:00.000Z")}
        onSelect={() => undefined}
        bulkAction="note"
      />,
    );
    expect(screen.getByRole("link", { name: /Note this cause/ })).toBeInTheDocument();
  });
});
