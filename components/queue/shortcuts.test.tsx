import { act, fireEvent, render, screen, within } from "@testing-library/react";
import type { ReactNode } from "react";
import { describe, expect, it, vi } from "vitest";
import type { QueueItem } from "./model";
import { QueueShortcuts } from "./queue-shortcuts";
import { ReasonChips } from "./reason-chips";
import { ReviewTable } from "./review-table";
import { isTypingTarget } from "./row-keys";

// The queue's keyboard (j/k/Enter/x/?), its roving tab stop, and the reason chips' "more…".

const push = vi.fn();
vi.mock("next/navigation", () => ({ useRouter: () => ({ push }) }));
vi.mock("next/link", () => ({
  // A plain anchor: the table's keyboard needs the element, not Next's routing.
  default: ({ href, children, ...rest }: { href: string; children: ReactNode; prefetch?: boolean }) => {
    const anchor: Record<string, unknown> = { ...rest };
    delete anchor.prefetch;
    return (
      <a href={href} {...anchor}>
        {children}
      </a>
    );
  },
}));

function item(i: number, extra: Partial<QueueItem> = {}): QueueItem {
  return {
    id: `00000000-0000-4000-8000-00000000000${i}`,
    status: "open",
    category: "manual-review",
    reason: "retry-limit",
    kind: "invoice.reminder",
    messageId: `msg-${i}`,
    effectKey: `eff-${i}`,
    sequenceKey: null,
    sequence: null,
    attempts: i,
    requiredCheck: "Check the ledger",
    version: 1,
    firstSeenAt: "2026-12-01T10:00:00.000Z",
    lastSeenAt: "2026-12-01T10:00:00.000Z",
    errorClass: "ETIMEDOUT",
    lastError: "ETIMEDOUT after 30000 ms",
    ready: false,
    assignee: null,
    ...extra,
  };
}

function renderTable(items = [item(1), item(2), item(3)]) {
  const toggle = vi.fn();
  const onSort = vi.fn();
  render(
    <>
      <input aria-label="Somewhere to type" />
      <ReviewTable
        items={items}
        loading={false}
        stale={false}
        now={Date.parse("2026-12-01T11:00:00.000Z")}
        selection={{ selected: new Set(), toggle }}
        sort={{ sort: undefined, onSort }}
      />
    </>,
  );
  const links = () => screen.getAllByRole("link");
  return { toggle, onSort, links };
}

const press = (key: string, target: Element | Window = window) => act(() => void fireEvent.keyDown(target, { key }));

describe("the records' keyboard", () => {
  it("is one tab stop: only the current row's link is tabbable, row checkboxes are not", () => {
    const { links } = renderTable();
    expect(links().map((l) => l.getAttribute("tabindex"))).toEqual(["0", "-1", "-1"]);
    for (const box of screen.getAllByRole("checkbox", { name: /Select record/ })) {
      expect(box).toHaveAttribute("tabindex", "-1");
    }
  });

  it("j and k move focus between rows, and the tab stop follows", () => {
    const { links } = renderTable();
    press("j");
    expect(links()[0]).toHaveFocus();
    press("j");
    expect(links()[1]).toHaveFocus();
    press("j");
    press("j");
    expect(links()[2]).toHaveFocus();
    press("k");
    expect(links()[1]).toHaveFocus();
    expect(links().map((l) => l.getAttribute("tabindex"))).toEqual(["-1", "0", "-1"]);
  });

  it("x ticks the focused row; Enter on its checkbox opens it", () => {
    const { toggle, links } = renderTable();
    press("j");
    press("j");
    press("x", links()[1]!);
    expect(toggle).toHaveBeenCalledWith([item(2).id], true);
    const clicked = vi.fn((event: Event) => event.preventDefault());
    links()[1]!.addEventListener("click", clicked);
    press("Enter", screen.getByRole("checkbox", { name: "Select record msg-2" }));
    expect(clicked).toHaveBeenCalled();
  });

  it("keys typed in a text field are text, not shortcuts", () => {
    const { links, toggle } = renderTable();
    const field = screen.getByLabelText("Somewhere to type");
    field.focus();
    press("j", field);
    press("x", field);
    expect(field).toHaveFocus();
    expect(links()[0]).not.toHaveFocus();
    expect(toggle).not.toHaveBeenCalled();
    expect(isTypingTarget(field)).toBe(true);
    expect(isTypingTarget(screen.getAllByRole("checkbox")[0]!)).toBe(false);
  });

  it("a sortable header sorts, and shows the order with aria-sort", () => {
    const { onSort } = renderTable();
    fireEvent.click(screen.getByRole("button", { name: /Attempts/ }));
    expect(onSort).toHaveBeenCalledWith("-attempts");
    fireEvent.click(screen.getByRole("button", { name: /Age/ }));
    expect(onSort).toHaveBeenLastCalledWith("firstSeenAt");
  });

  it("shows the error class and the cause once when reason and category are equal", () => {
    renderTable([item(1, { category: "sequence-gap", reason: "sequence-gap" }), item(2)]);
    const [, first, second] = screen.getAllByRole("row");
    expect(within(first!).getAllByText("sequence-gap")).toHaveLength(1);
    expect(within(second!).getByText("retry-limit")).toBeInTheDocument();
    expect(within(second!).getByText("ETIMEDOUT")).toBeInTheDocument();
  });
});

describe("? shows the shortcuts", () => {
  it("opens the dialog from anywhere but a text field", () => {
    HTMLDialogElement.prototype.showModal ??= function (this: HTMLDialogElement) {
      this.setAttribute("open", "");
    };
    render(
      <>
        <input aria-label="Typing here" />
        <QueueShortcuts />
      </>,
    );
    const field = screen.getByLabelText("Typing here");
    press("?", field);
    expect(screen.queryByText("Next record")).not.toBeInTheDocument();
    press("?");
    expect(screen.getByText("Next record")).toBeInTheDocument();
    expect(screen.getByText(/^Select or unselect the record \(for a bulk operation\)/)).toBeInTheDocument();
  });
});

describe("reason chips", () => {
  it("show the largest reasons in one row and the rest under more…", () => {
    const reasons = Array.from({ length: 10 }, (_, i) => [`reason-${i}`, 100 - i] as [string, number]);
    const onReason = vi.fn();
    render(<ReasonChips reasons={reasons} selected="reason-9" onReason={onReason} />);
    const more = screen.getByRole("button", { name: "more… (4)" });
    expect(more).toHaveAttribute("aria-expanded", "false");
    // The selected reason stays in view even when it is not among the largest.
    expect(screen.getByRole("button", { name: /^reason-9\b/, pressed: true })).toBeVisible();
    fireEvent.click(more);
    expect(more).toHaveAttribute("aria-expanded", "true");
    const panel = screen.getByRole("list", { name: "More reasons" });
    expect(within(panel).getAllByRole("button")).toHaveLength(4);
    fireEvent.click(within(panel).getByRole("button", { name: /^reason-6\b/ }));
    expect(onReason).toHaveBeenCalledWith("reason-6");
    expect(more).toHaveAttribute("aria-expanded", "false");
  });
});

describe("a record whose decision waits for approval", () => {
  it('reads "approval pending" in its row, beside its status', () => {
    render(
      <ReviewTable
        items={[item(1), item(2)]}
        loading={false}
        stale={false}
        now={Date.parse("2026-12-01T11:00:00.000Z")}
        pendingApprovals={new Set([item(2).id])}
      />,
    );
    const rows = screen.getAllByRole("row").slice(1);
    expect(rows[0]).not.toHaveTextContent("approval pending");
    expect(rows[1]).toHaveTextContent("openapproval pending");
  });
});
