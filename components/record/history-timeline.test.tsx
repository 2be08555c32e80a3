import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { HistoryTimeline } from "./history-timeline";

// An assignment in the history names the people, not their JSON.

describe("the history of an assignment", () => {
  it("shows the assignee and the previous one by name", () => {
    render(
      <HistoryTimeline
        history={[
          {
            id: 1,
            at: "2026-12-01T10:00:00.000Z",
            actor: "user:ann@example.test",
            action: "assign",
            fromStatus: "open",
            toStatus: "open",
            reason: "took the record",
            details: {
              assignee: { id: "u1", name: "Ann Lee", email: "ann@example.test" },
              previousAssignee: null,
            },
          },
        ]}
      />,
    );
    expect(screen.getByText("Ann Lee (ann@example.test)")).toBeInTheDocument();
    expect(screen.getByText("nobody")).toBeInTheDocument();
    expect(screen.queryByText(/"email"/)).toBeNull();
  });
});
