import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ScheduledReplayControls } from "./scheduled-replay-controls";
import { testRecord } from "./test-record";

// One clock on the page: a reschedule is typed in UTC, like the replay's "At a time (UTC)",
// whatever the browser's zone; it starts at the current due time.

const zone = process.env.TZ;
beforeAll(() => {
  process.env.TZ = "America/Los_Angeles";
});
afterAll(() => {
  process.env.TZ = zone;
});
afterEach(() => vi.unstubAllGlobals());

describe("rescheduling in a browser in Los Angeles", () => {
  it("starts at the due time, names UTC, and sends 09:00 as 09:00Z", async () => {
    const due = "2031-05-04T07:30:00.000Z";
    const record = testRecord({
      status: "replay-scheduled",
      version: 3,
      replays: [
        {
          id: "r1",
          revisionNumber: 0,
          state: "scheduled",
          runAt: due,
          claimedBy: null,
          claimExpiresAt: null,
          detail: null,
          createdBy: "user:owner@example.test",
          createdAt: "2031-05-01T00:00:00.000Z",
          completedAt: null,
        },
      ],
    });
    const sent: unknown[] = [];
    vi.stubGlobal(
      "fetch",
      vi.fn(async (_url: string, init: RequestInit) => {
        sent.push(JSON.parse(String(init.body)));
        return new Response(JSON.stringify(record), { status: 200 });
      }),
    );
    render(
      <QueryClientProvider client={new QueryClient()}>
        <ScheduledReplayControls record={record} role="owner" />
      </QueryClientProvider>,
    );
    fireEvent.click(screen.getByRole("button", { name: "Reschedule…" }));
    const dialog = await screen.findByRole("dialog");
    const when = within(dialog).getByLabelText("New time (UTC)");
    expect(when).toHaveValue("2031-05-04T07:30");
    fireEvent.change(when, { target: { value: "2031-05-04T09:00" } });
    expect(within(dialog).getByText(/^Due 2031-05-04 09:00 UTC/)).toBeInTheDocument();
    fireEvent.change(within(dialog).getByLabelText("Reason (required)"), { target: { value: "later" } });
    fireEvent.click(within(dialog).getByRole("button", { name: "Reschedule" }));
    await waitFor(() => expect(sent).toHaveLength(1));
    expect(sent[0]).toMatchObject({ action: "reschedule", runAt: "2031-05-04T09:00:00.000Z" });
  });
});
