import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { JournalSection } from "./journal-section";
import { testRecord } from "./test-record";

// A record reported over HTTP by a worker with its own journal: this console's journal has no
// entry for its key, and that must never read as "the effect was not sent".

describe("JournalSection without an entry in this console's journal", () => {
  const unknown = testRecord({
    category: "effect-result-unknown",
    reason: "effect-result-unknown",
    effectKey: "charge-6003",
    requiredCheck: "ask the provider whether effect charge-6003 was sent",
    source: { transport: "http", consumer: "python-billing" },
    journal: null,
  });

  it("says where the knowledge is, not that the effect was never started", () => {
    render(<JournalSection record={unknown} />);
    expect(screen.queryByText(/never started/i)).toBeNull();
    expect(screen.getByText(/in this console's journal/)).toHaveTextContent(
      "No entry for charge-6003 in this console's journal; the reporting worker (python-billing) keeps its own.",
    );
    expect(screen.getByText(/does not tell whether the effect was sent/)).toBeInTheDocument();
  });

  it("names no worker when the source names none", () => {
    render(<JournalSection record={{ ...unknown, source: null }} />);
    expect(screen.getByText(/in this console's journal/)).toHaveTextContent("the reporting worker keeps its own.");
    expect(screen.queryByText(/never started/i)).toBeNull();
  });
});
