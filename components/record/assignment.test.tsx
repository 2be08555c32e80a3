import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ASSIGN_TO_ME_REASON, Assignment } from "./assignment";
import { testRecord } from "./test-record";

// Taking a record for oneself is one click: no dialog, no typed reason.

afterEach(() => vi.unstubAllGlobals());

describe("Assign to me", () => {
  it("assigns at once, with the fixed reason, and says so", async () => {
    const record = testRecord({ status: "open", assignee: null });
    const sent: unknown[] = [];
    vi.stubGlobal(
      "fetch",
      vi.fn(async (_url: string, init: RequestInit) => {
        sent.push(JSON.parse(String(init.body)));
        return new Response(JSON.stringify({ ...record, version: 2 }), { status: 200 });
      }),
    );
    render(
      <QueryClientProvider client={new QueryClient()}>
        <Assignment record={record} role="support" userId="u1" />
      </QueryClientProvider>,
    );
    fireEvent.click(screen.getByRole("button", { name: "Assign to me" }));
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(await screen.findByText("Assigned to you.")).toBeInTheDocument();
    await waitFor(() => expect(sent).toHaveLength(1));
    expect(sent[0]).toMatchObject({ action: "assign", assignee: "me", reason: ASSIGN_TO_ME_REASON });
  });
});
