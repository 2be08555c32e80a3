import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ApprovalView } from "@/lib/approvals";
import { ApprovalsView } from "./approvals-view";

// The approvals page read as a conversation: what the request would run, where a held request
// lands, the outcome after an answer (the card does not vanish), and the requester's withdraw.

const ME = "user:ann@example.test";

function request(overrides: Partial<ApprovalView> = {}): ApprovalView {
  return {
    id: "11111111-0000-4000-8000-000000000001",
    status: "pending",
    decision: "operation",
    action: "operation",
    operationAction: "replay",
    permission: "reviews.resolve",
    domain: "payments",
    domains: ["payments"],
    reviewId: null,
    expectedVersion: null,
    records: 139,
    reason: "provider back up",
    requestedBy: "user:bob@example.test",
    decidedBy: null,
    decidedReason: null,
    decidedAt: null,
    problem: null,
    operationId: null,
    expiresAt: "2026-12-05T10:00:00.000Z",
    createdAt: "2026-12-04T10:00:00.000Z",
    canDecide: true,
    operationRequest: {
      selection: { type: "filter", filter: { kind: "payment.charge", status: "open" } },
      runAt: null,
      ratePerSecond: 5,
      canarySize: 10,
    },
    ...overrides,
  };
}

/** GET /api/v1/approvals answers `listed`; a POST answers the request as `answered`. */
function serve(listed: ApprovalView[], answered?: ApprovalView) {
  const posts: string[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (url: string, init?: RequestInit) => {
      if (init?.method === "POST") {
        posts.push(url);
        return new Response(JSON.stringify({ approval: answered }), { status: 200 });
      }
      // After an answer the pending list no longer holds it.
      const now = posts.length > 0 ? listed.filter((a) => a.id !== answered?.id) : listed;
      return new Response(JSON.stringify({ approvals: now, waitingForYou: now.length }), { status: 200 });
    }),
  );
  return posts;
}

afterEach(() => vi.unstubAllGlobals());

function renderView(props: { request?: string; already?: boolean } = {}) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <ApprovalsView viewerLabel={ME} {...props} />
    </QueryClientProvider>,
  );
}

describe("the approvals page", () => {
  it("a bulk request shows its selection, rate and canary", async () => {
    serve([request()]);
    renderView();
    const card = await screen.findByTestId("approval");
    expect(card).toHaveTextContent("SelectionEvery record that matches the filter: status open; kind payment.charge");
    expect(card).toHaveTextContent("Rate5 per second");
    expect(card).toHaveTextContent("Canarythe first 10 records, then a stop");
  });

  it("after Approve the card stays, showing the outcome", async () => {
    const pending = request();
    const posts = serve([pending], {
      ...pending,
      status: "approved",
      decidedBy: ME,
      decidedReason: "checked",
      operationId: "22222222-0000-4000-8000-000000000002",
      canDecide: false,
    });
    renderView();
    const card = await screen.findByTestId("approval");
    fireEvent.change(within(card).getByLabelText("Reason (required)"), { target: { value: "checked" } });
    fireEvent.click(within(card).getByRole("button", { name: "Approve" }));
    expect(await within(card).findByText(`approved by ${ME}: “checked”`)).toBeInTheDocument();
    expect(posts).toEqual([`/api/v1/approvals/${pending.id}/approve`]);
    expect(within(card).getByRole("link", { name: "22222222-0000-4000-8000-000000000002" })).toBeInTheDocument();
  });

  it("a held request lands marked, and its requester can withdraw it", async () => {
    const mine = request({ requestedBy: ME, canDecide: false });
    const posts = serve([mine], { ...mine, status: "withdrawn", decidedBy: ME, decidedReason: "wrong filter" });
    renderView({ request: mine.id });
    expect(await screen.findByText("Held for approval")).toBeInTheDocument();
    const card = screen.getByTestId("approval");
    expect(card).toHaveAttribute("aria-current", "true");
    fireEvent.change(within(card).getByLabelText("Reason (required)"), { target: { value: "wrong filter" } });
    fireEvent.click(within(card).getByRole("button", { name: "Withdraw my request" }));
    expect(await within(card).findByText(`withdrawn by ${ME}: “wrong filter”`)).toBeInTheDocument();
    expect(posts).toEqual([`/api/v1/approvals/${mine.id}/withdraw`]);
  });

  it("a duplicate lands on the request that already waits", async () => {
    const mine = request({ requestedBy: ME, canDecide: false });
    serve([mine]);
    renderView({ request: mine.id, already: true });
    expect(await screen.findByText("This request already waits for approval")).toBeInTheDocument();
  });
});
