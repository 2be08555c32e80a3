import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { fireEvent, render, screen, within } from "@testing-library/react";
import { useState } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ActionName } from "@/lib/reviews";
import type { ReviewDetail } from "../types";
import { ReasonField } from "./action-fields";
import { ActionForm } from "./action-form";
import { primaryAction } from "./action-panel";
import { buildActionRequest } from "./action-request";
import { type ActionDraft, newDraft } from "./draft";
import { untilText } from "./run-at";

// The record's action forms, split on the shared Field: each field's label,
// hint and error reach its control; the cancel's tick names the cancel's own check, not the
// record's (payload) check; required fields are refused before anything is sent; the replay
// time is typed and previewed in UTC.

// The forms ask the server for the contract's verdict; here no server answers (action-panel.test.tsx
// covers the verdict).
beforeEach(() => vi.stubGlobal("fetch", async () => new Response("{}", { status: 503 })));
afterEach(() => vi.unstubAllGlobals());

const PAYLOAD_CHECK = "fix the payload: invoiceId must be a string";

function record(overrides: Partial<ReviewDetail> = {}): ReviewDetail {
  return {
    id: "0b8e4a52-9a77-4d8a-8f61-2f4a3b1c9d10",
    status: "open",
    category: "manual-review",
    reason: "invalid-payload",
    kind: "invoice.reminder",
    messageId: "msg-1",
    effectKey: "invoice-1:reminder",
    sequenceKey: null,
    sequence: null,
    attempts: 1,
    requiredCheck: PAYLOAD_CHECK,
    version: 3,
    firstSeenAt: "2026-11-30T09:00:00.000Z",
    lastSeenAt: "2026-11-30T09:00:00.000Z",
    reportCount: 1,
    lastError: null,
    payloadSchema: "2021-03",
    source: null,
    updatedAt: "2026-11-30T09:00:00.000Z",
    messageText: "{}",
    message: { id: "msg-1", kind: "invoice.reminder", payload: { invoiceId: 7 } },
    revisions: [],
    history: [],
    replays: [],
    journal: null,
    sequenceState: null,
    ...overrides,
  };
}

/** The form with its draft held as the action panel holds it. */
function Harness({ action, subject }: { action: ActionName; subject: ReviewDetail }) {
  const [draft, setDraft] = useState<ActionDraft>(() => newDraft(action, subject));
  return <ActionForm record={subject} role="owner" draft={draft} onChange={setDraft} onDone={() => undefined} />;
}

function renderForm(action: ActionName, subject = record()) {
  const client = new QueryClient({ defaultOptions: { mutations: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <Harness action={action} subject={subject} />
    </QueryClientProvider>,
  );
}

describe("the cancel form", () => {
  it("asks to confirm the cancel's own check, never the record's payload check", () => {
    renderForm("cancel");
    const tick = screen.getByRole("checkbox");
    expect(tick).toHaveAccessibleName(/the effect invoice-1:reminder must not happen/);
    expect(tick).not.toHaveAccessibleName(new RegExp(PAYLOAD_CHECK));
    expect(screen.queryByText(PAYLOAD_CHECK)).toBeNull();
  });

  it("refuses an empty reason and an unticked check before sending, each under its field", () => {
    renderForm("cancel");
    fireEvent.click(screen.getByRole("button", { name: "Cancel the effect" }));
    const summary = screen.getByRole("alert");
    expect(within(summary).getByText("Some fields need attention")).toBeInTheDocument();
    const reason = screen.getByLabelText("Reason (required)");
    expect(reason).toHaveAttribute("aria-invalid", "true");
    expect(reason).toHaveAccessibleDescription(/Written to the record's history.*a reason is required/);
    expect(screen.getByRole("checkbox")).toHaveAccessibleDescription(/confirm that the required check was done/);
    // The summary links to the fields it names.
    const link = within(summary).getByRole("link", { name: "a reason is required" });
    expect(link.getAttribute("href")).toBe(`#${reason.id}`);
  });
});

describe("an action an approval policy holds", () => {
  it("says so in its dialog before the person confirms", () => {
    renderForm("cancel", record({ approvalNeeded: ["cancel"] }));
    expect(screen.getByText(/Approval needed: a policy holds this action/)).toBeInTheDocument();
  });

  it("says nothing of approval when no policy holds it", () => {
    renderForm("cancel", record({ approvalNeeded: ["skip-gap"] }));
    expect(screen.queryByText(/Approval needed/)).toBeNull();
  });
});

describe("the replay form", () => {
  it("names the record's required check, which a replay answers", () => {
    renderForm("replay");
    expect(screen.getByRole("checkbox")).toHaveAccessibleName(`I have done the required check: ${PAYLOAD_CHECK}`);
  });

  it("takes the time in UTC and previews it before sending", () => {
    renderForm("replay");
    fireEvent.click(screen.getByLabelText("At a time (UTC)"));
    const when = screen.getByLabelText("Replay at (UTC)");
    expect(when).toHaveAccessibleDescription(/^Date and time in UTC, as every time on this page\./);
    fireEvent.change(when, { target: { value: "2031-05-04T10:30" } });
    expect(when).toHaveAccessibleDescription(/^Runs at 2031-05-04 10:30 UTC \(in \d+ d/);
  });
});

describe("the confirm forms", () => {
  it("requires the provider's reference for applied, labels it optional for not applied", () => {
    const unknown = record({ category: "effect-result-unknown", reason: "effect-unknown" });
    const { unmount } = renderForm("confirm-applied", unknown);
    const ref = screen.getByLabelText("Provider's reference (required)");
    expect(ref).toBeRequired();
    expect(ref).toHaveAccessibleDescription(/the evidence that it exists/);
    unmount();
    renderForm("confirm-not-applied", unknown);
    expect(screen.getByLabelText("Provider's reference (optional)")).not.toBeRequired();
  });
});

describe("ReasonField", () => {
  it("wires its label, hint and error to the control", () => {
    const draft = newDraft("note", record());
    render(
      <ReasonField draft={draft} update={() => undefined} errors={{ reason: ["say why"] }} ids={(f) => `t-${f}`} />,
    );
    const note = screen.getByLabelText("Note (required)");
    expect(note).toHaveAttribute("id", "t-reason");
    expect(note).toHaveAttribute("aria-invalid", "true");
    expect(note).toHaveAccessibleDescription(
      "Written to the record's history and the decision log with your name. say why",
    );
  });
});

describe("buildActionRequest", () => {
  const NOW = Date.parse("2031-05-04T10:00:00Z");
  it("reads the replay time in the person's zone, whatever the browser's", () => {
    const draft = { ...newDraft("replay", record()), reason: "fixed", checkDone: true };
    const built = buildActionRequest(
      { ...draft, runMode: "at", runAtLocal: "2031-05-04T10:30" },
      {
        check: null,
        envelope: null,
      },
      { now: NOW },
    );
    expect(built).toEqual({
      body: expect.objectContaining({ action: "replay", runAt: "2031-05-04T10:30:00.000Z", checkDone: true }),
    });
    // Someone who chose Los Angeles time types 09:00: 16:00Z in May (PDT).
    const inLosAngeles = buildActionRequest(
      { ...draft, runMode: "at", runAtLocal: "2031-05-04T09:00" },
      { check: null, envelope: null },
      { now: NOW, zone: "America/Los_Angeles" },
    );
    expect(inLosAngeles).toEqual({ body: expect.objectContaining({ runAt: "2031-05-04T16:00:00.000Z" }) });
    const past = buildActionRequest(
      { ...draft, runMode: "at", runAtLocal: "2031-05-04T08:00" },
      {
        check: null,
        envelope: null,
      },
      { now: NOW },
    );
    expect(past).toEqual({ errors: { runAt: ["this time has passed: choose a later one, or Now"] } });
  });

  it("helpers: the time until it", () => {
    expect(untilText("2031-05-04T12:05:00Z", NOW)).toBe("in 2 h 5 min");
  });
});

describe("the primary action", () => {
  it("follows the contract's verdict for a replay: never a replay that would not apply", () => {
    const actions: ActionName[] = ["replay", "correct-and-replay", "skip-gap", "cancel", "note"];
    expect(primaryAction(actions, "would-apply")).toBe("replay");
    expect(primaryAction(actions, "would-hold-stale")).toBeNull();
    expect(primaryAction(actions, "would-hold-gap")).toBeNull();
    expect(primaryAction(actions, "would-suppress")).toBeNull();
    // The message breaks the contract: the correction is what its check asks for.
    expect(primaryAction(actions, "invalid")).toBe("correct-and-replay");
    // Not known yet: nothing leads.
    expect(primaryAction(actions, undefined)).toBeNull();
    expect(primaryAction(["confirm-applied", "confirm-not-applied", "cancel", "note"], undefined)).toBe(
      "confirm-applied",
    );
  });
});
