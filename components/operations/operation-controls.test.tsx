import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { fireEvent, render, screen } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { operationOutcome } from "@/lib/operations";
import type { OperationView } from "@/lib/operations";
import { OperationStateBadge } from "./operation-badges";
import { OperationControls } from "./operation-controls";

// An operation that would do nothing is not offered, and one that did nothing does not look like
// a success; a notice about a control goes once the operation's state moves on.

function operation(overrides: Partial<OperationView> = {}): OperationView {
  return {
    id: "6f1c2b8e-0000-4000-8000-000000000001",
    action: "replay",
    state: "planned",
    reason: "incident 7",
    selection: { type: "group", group: { kind: "payment.charge", reason: "effect-result-unknown", errorClass: null } },
    total: 18,
    createdBy: "user:owner@example.test",
    createdAt: "2026-12-01T10:00:00.000Z",
    confirmedBy: null,
    confirmedAt: null,
    finishedAt: null,
    runAt: null,
    ratePerSecond: 10,
    canarySize: 0,
    canaryPassed: false,
    autoPause: null,
    pauseReason: null,
    version: 2,
    dryRun: { at: "2026-12-01T10:01:00.000Z", counts: { "not-eligible": 18 } },
    progress: {
      dispatched: 0,
      outcomes: 0,
      heldAgain: 0,
      byState: { pending: 18 },
      outcome: operationOutcome({ pending: 18 }),
    },
    controls: ["dry-run", "confirm", "abort"],
    ...overrides,
  };
}

function withClient(children: ReactNode) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}

afterEach(() => vi.unstubAllGlobals());

describe("an operation whose dry run acts on no record", () => {
  it("offers no Confirm and start, and says why", () => {
    render(withClient(<OperationControls operation={operation()} role="owner" />));
    expect(screen.queryByRole("button", { name: /Confirm and start/ })).toBeNull();
    expect(screen.getByText(/Nothing to start: the dry run found no record this replay would act on/)).toBeVisible();
    expect(screen.getByRole("button", { name: "Abort…" })).toBeInTheDocument();
  });

  it("one that would act on some records is offered", () => {
    const some = operation({
      dryRun: { at: "2026-12-01T10:01:00.000Z", counts: { "not-eligible": 17, "would-apply": 1 } },
    });
    render(withClient(<OperationControls operation={some} role="owner" />));
    expect(screen.getByRole("button", { name: /Confirm and start/ })).toBeEnabled();
  });
});

describe("the state badge", () => {
  it("a completed operation that applied nothing is not shown as a success", () => {
    const nothing = operationOutcome({ skipped: 18 });
    const { rerender } = render(<OperationStateBadge state="completed" outcome={nothing} />);
    expect(screen.getByText("completed: nothing applied")).toBeInTheDocument();
    rerender(<OperationStateBadge state="completed" outcome={operationOutcome({ applied: 3, skipped: 15 })} />);
    expect(screen.getByText("completed")).toBeInTheDocument();
  });
});

describe("a control's notice", () => {
  it("goes once the operation's state moves on", async () => {
    const running = operation({ state: "running", controls: ["pause", "abort"] });
    const paused = { ...running, state: "paused" as const, controls: ["resume" as const, "abort" as const] };
    vi.stubGlobal("fetch", async () => new Response(JSON.stringify(paused), { status: 200 }));
    const { rerender } = render(withClient(<OperationControls operation={running} role="owner" />));
    fireEvent.click(screen.getByRole("button", { name: "Pause" }));
    rerender(withClient(<OperationControls operation={paused} role="owner" />));
    expect(await screen.findByText("Paused.")).toBeInTheDocument();
    // Someone resumed it: "Paused." no longer describes it.
    rerender(withClient(<OperationControls operation={{ ...running, version: 4 }} role="owner" />));
    expect(screen.queryByText("Paused.")).toBeNull();
  });
});
