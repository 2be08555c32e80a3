import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import ui from "@/components/ui/ui.module.css";
import type { ApprovalView } from "@/lib/approvals";
import type { RecordVerdict } from "@/lib/actions";
import { testRecord } from "../test-record";
import type { ReviewDetail } from "../types";
import { ActionPanel } from "./action-panel";

// A single replay gets what a bulk operation gets: the contract's verdict before the person
// confirms, and a main button only where the action can succeed.

/**
 * The server: the verdict endpoint answers `verdict` for every request (the requests are kept);
 * the approvals list answers `pending`.
 */
function serveVerdict(verdict: Omit<RecordVerdict, "action" | "version">, pending: ApprovalView[] = []) {
  const requests: unknown[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (url: string, init: RequestInit) => {
      if (url.startsWith("/api/v1/approvals")) {
        return new Response(JSON.stringify({ approvals: pending, waitingForYou: 0 }), { status: 200 });
      }
      expect(url).toMatch(/\/api\/v1\/reviews\/[^/]+\/verdict$/);
      const body = JSON.parse(String(init.body)) as { action: string };
      requests.push(body);
      return new Response(JSON.stringify({ action: body.action, version: 1, ...verdict }), { status: 200 });
    }),
  );
  return requests;
}

afterEach(() => vi.unstubAllGlobals());

function renderPanel(record: ReviewDetail) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <ActionPanel record={record} role="owner" />
    </QueryClientProvider>,
  );
}

const isPrimary = (button: HTMLElement) => button.className.split(" ").includes(ui.primary!);

describe("the record's actions, before a replay", () => {
  it("a gap whose predecessors are missing: the verdict says it would be held again, and Replay does not lead", async () => {
    const requests = serveVerdict({ verdict: "would-hold-gap", detail: "find message 11 of invoice-417" });
    renderPanel(testRecord());
    const verdict = await screen.findByText(/Would be held again: a predecessor is still missing/);
    expect(verdict.closest("p")).toHaveTextContent(
      "If replayed now: would-hold-gap Would be held again: a predecessor is still missing (find message 11 of invoice-417).",
    );
    expect(requests).toEqual([{ action: "replay" }]);
    const buttons = screen.getAllByRole("button");
    expect(buttons.filter(isPrimary)).toEqual([]);
    // Still there, as a secondary action the verdict explains.
    expect(isPrimary(screen.getByRole("button", { name: "Replay" }))).toBe(false);
  });

  it("the same verdict is in the replay dialog, above the confirm", async () => {
    serveVerdict({ verdict: "would-hold-gap", detail: "find message 11 of invoice-417" });
    renderPanel(testRecord());
    fireEvent.click(screen.getByRole("button", { name: "Replay" }));
    const dialog = await screen.findByRole("dialog");
    expect(await within(dialog).findByText(/Would be held again/)).toBeInTheDocument();
    expect(within(dialog).getByRole("button", { name: "Schedule the replay" })).toBeInTheDocument();
  });

  it("a replay that would apply is the main button", async () => {
    serveVerdict({ verdict: "would-apply", detail: null });
    renderPanel(testRecord({ sequenceState: { sequenceKey: "invoice-417", lastSequence: 11, updatedAt: "x" } }));
    await screen.findByText(/Would apply: the effect would be created/);
    expect(isPrimary(screen.getByRole("button", { name: "Replay" }))).toBe(true);
  });

  it("an invalid payload: the correction leads, the replay's verdict says why", async () => {
    serveVerdict({ verdict: "invalid", detail: "invalid-payload: fix payload.invoiceId" });
    renderPanel(testRecord({ category: "manual-review", reason: "invalid-payload", sequenceState: null }));
    await screen.findByText(/the message breaks the contract/);
    expect(isPrimary(screen.getByRole("button", { name: "Correct and replay" }))).toBe(true);
    expect(isPrimary(screen.getByRole("button", { name: "Replay" }))).toBe(false);
  });

  it("while a cancel waits for approval, neither Cancel nor Replay is offered, and the page says why", async () => {
    const record = testRecord();
    const waiting = {
      id: "a1",
      status: "pending",
      decision: "cancel",
      action: "cancel",
      reviewId: record.id,
      requestedBy: "user:ann@example.test",
    } as ApprovalView;
    serveVerdict({ verdict: "would-apply", detail: null }, [waiting]);
    renderPanel(record);
    expect(await screen.findByText(/Approval pending: cancel the effect waits for another person/)).toBeVisible();
    expect(screen.queryByRole("button", { name: "Replay" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Cancel the effect" })).toBeNull();
    expect(screen.getByRole("button", { name: "Add a note" })).toBeInTheDocument();
  });

  it("a report of an action goes once the record moves on to another version", async () => {
    const record = testRecord({ version: 1 });
    const noted = { ...record, version: 2 };
    vi.stubGlobal(
      "fetch",
      vi.fn(async (url: string) => {
        if (url.startsWith("/api/v1/approvals"))
          return new Response(JSON.stringify({ approvals: [], waitingForYou: 0 }));
        if (url.endsWith("/verdict")) {
          return new Response(
            JSON.stringify({ action: "replay", version: 1, verdict: "would-hold-gap", detail: null }),
          );
        }
        return new Response(JSON.stringify(noted));
      }),
    );
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const panel = (subject: ReviewDetail) => (
      <QueryClientProvider client={client}>
        <ActionPanel record={subject} role="owner" />
      </QueryClientProvider>
    );
    const { rerender } = render(panel(record));
    fireEvent.click(screen.getByRole("button", { name: "Add a note" }));
    const dialog = await screen.findByRole("dialog");
    fireEvent.change(within(dialog).getByLabelText("Note (required)"), { target: { value: "called the bank" } });
    fireEvent.click(within(dialog).getByRole("button", { name: "Add the note" }));
    rerender(panel(noted));
    expect(await screen.findByText(/Add a note: done/)).toBeInTheDocument();
    // Someone (or this person, elsewhere on the page) changed the record since: the report is stale.
    rerender(panel({ ...noted, version: 3, status: "replay-scheduled" }));
    expect(screen.queryByText(/Add a note: done/)).toBeNull();
  });
});
