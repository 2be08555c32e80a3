import { fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { QueueFilters } from "./queue-filters";
import { readQueueState } from "./queue-params";

// The queue's filter form: every control has a label (and the search its description) through
// the shared Field, and the text fields apply together, trimmed.

function renderFilters(params: Record<string, string> = {}) {
  const setParams = vi.fn();
  const state = readQueueState((key) => params[key]);
  render(<QueueFilters state={state} reasons={["retry-limit"]} setParams={setParams} />);
  return { setParams };
}

describe("QueueFilters", () => {
  it("labels every control, and the search is described by its hint", () => {
    renderFilters();
    for (const label of [
      "Search",
      "Status",
      "Category",
      "Reason",
      "Kind",
      "Sequence key",
      "Effect key",
      "Error class",
    ]) {
      expect(screen.getByLabelText(label), label).toBeInTheDocument();
    }
    expect(screen.getByLabelText("Search")).toHaveAccessibleDescription(/Record id, message id, payload or error text/);
    expect(screen.getByLabelText("Status")).toHaveValue("open");
    expect(screen.getByRole("search", { name: "Filter the queue" })).toBeInTheDocument();
  });

  it("a one-character search is marked invalid and says why", () => {
    renderFilters();
    const search = screen.getByLabelText("Search");
    fireEvent.change(search, { target: { value: "a" } });
    expect(search).toHaveAttribute("aria-invalid", "true");
    expect(search).toHaveAccessibleDescription("Type at least 2 characters.");
  });

  it("applies the typed text filters together, trimmed, on submit", () => {
    const { setParams } = renderFilters();
    expect(screen.getByRole("button", { name: "Apply" })).toBeDisabled();
    fireEvent.change(screen.getByLabelText("Kind"), { target: { value: "  invoice.reminder " } });
    fireEvent.change(screen.getByLabelText("Error class"), { target: { value: "ETIMEDOUT" } });
    fireEvent.click(screen.getByRole("button", { name: "Apply" }));
    expect(setParams).toHaveBeenCalledWith(
      expect.objectContaining({ kind: "invoice.reminder", errorClass: "ETIMEDOUT", q: "", reason: "" }),
    );
  });

  it("shows the URL's filters and a select applies at once", () => {
    const { setParams } = renderFilters({ reason: "retry-limit", status: "all" });
    expect(screen.getByLabelText("Reason")).toHaveValue("retry-limit");
    expect(screen.getByLabelText("Status")).toHaveValue("all");
    fireEvent.change(screen.getByLabelText("Category"), { target: { value: "sequence-gap" } });
    expect(setParams).toHaveBeenCalledWith({ category: "sequence-gap" });
  });
});
