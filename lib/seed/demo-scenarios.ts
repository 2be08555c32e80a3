import { decide, type DecisionState, invoiceReminderKind, nextAttempt } from "@review-console/contract";
import type { ReportInput } from "@/lib/reviews";

/**
 * The demo data set: one story per category and reason, each produced by the real `decide` (or
 * `nextAttempt`) against the journal and sequence state the story sets up, so the demo shows
 * what the contract really says, not hand-written labels.
 */
export interface DemoScenario {
  title: string;
  sequenceState?: { sequenceKey: string; lastSequence: number };
  journal?: {
    effectKey: string;
    state: "started" | "unknown";
    leaseExpiresAt: Date | null;
    sequenceKey: string;
    sequence: number;
    messageId: string;
  };
  report: ReportInput;
}

const source = (transportId: string) => ({
  transport: "redis-streams",
  queue: "invoice-reminders",
  consumer: "billing-worker-1",
  transportId,
});

function reminder(n: string, sequence: number, extra: Record<string, unknown> = {}) {
  return {
    id: `msg-order-${n}-${sequence}`,
    kind: "invoice.reminder",
    effectKey: `invoice-${n}:reminder:${sequence}`,
    sequenceKey: `invoice-${n}`,
    sequence,
    payload: { invoiceId: n, schema: "2021-03" },
    ...extra,
  };
}

const EMPTY: DecisionState = { lastSequence: 0, journal: null, inFlightSequences: [], now: new Date() };

function decided(
  message: unknown,
  state: Partial<DecisionState>,
  attempts: number,
  transportId: string,
  lastError?: string,
): ReportInput {
  const decision = decide(message, { ...EMPTY, ...state });
  if (decision.outcome !== "review") throw new Error(`demo scenario expected a review, got ${decision.outcome}`);
  return {
    category: decision.category,
    reason: decision.reason,
    requiredCheck: decision.requiredCheck,
    attempts,
    ...(lastError ? { lastError } : {}),
    source: source(transportId),
    message: message as ReportInput["message"],
  };
}

function afterRetries(
  message: ReturnType<typeof reminder>,
  reason: string,
  completed: number,
  lastError: string,
  transportId: string,
): ReportInput {
  const next = nextAttempt(completed, reason, invoiceReminderKind.temporaryReasons);
  if (next.action !== "review") throw new Error("demo scenario expected the retry budget to be spent");
  return {
    category: "manual-review",
    reason: next.reason,
    requiredCheck:
      next.reason === "retry-limit"
        ? `check why ${reason} persisted for invoice ${message.payload.invoiceId}, then replay`
        : `read the provider's refusal for invoice ${message.payload.invoiceId} and correct or cancel`,
    attempts: completed,
    lastError,
    source: source(transportId),
    message,
  };
}

export function demoScenarios(now = new Date()): DemoScenario[] {
  const expired = new Date(now.getTime() - 10 * 60_000);
  const gap = reminder("417", 12);
  const gapRange = reminder("502", 4);
  const unknown = reminder("611", 2);
  const stuck = reminder("612", 3);
  const stale = reminder("700", 3);
  return [
    {
      title: "message 12 arrived before 11",
      sequenceState: { sequenceKey: "invoice-417", lastSequence: 10 },
      report: decided(gap, { lastSequence: 10 }, 1, "1732950000000-0"),
    },
    {
      title: "messages 1–3 never arrived",
      report: decided(gapRange, {}, 1, "1732950000001-0"),
    },
    {
      title: "the provider's answer was lost",
      sequenceState: { sequenceKey: "invoice-611", lastSequence: 1 },
      journal: {
        effectKey: unknown.effectKey,
        state: "unknown",
        leaseExpiresAt: null,
        sequenceKey: "invoice-611",
        sequence: 2,
        messageId: unknown.id,
      },
      report: decided(
        unknown,
        { lastSequence: 1, journal: { state: "unknown", leaseExpiresAt: null } },
        1,
        "1732950000002-0",
        "ETIMEDOUT after 30000 ms: POST https://mail.example/send",
      ),
    },
    {
      title: "a worker died mid-effect (lease expired)",
      sequenceState: { sequenceKey: "invoice-612", lastSequence: 2 },
      journal: {
        effectKey: stuck.effectKey,
        state: "started",
        leaseExpiresAt: expired,
        sequenceKey: "invoice-612",
        sequence: 3,
        messageId: stuck.id,
      },
      report: decided(
        stuck,
        { lastSequence: 2, journal: { state: "started", leaseExpiresAt: expired } },
        1,
        "1732950000003-0",
        "worker billing-worker-2 stopped responding",
      ),
    },
    {
      title: "an old message came back",
      sequenceState: { sequenceKey: "invoice-700", lastSequence: 5 },
      report: decided(stale, { lastSequence: 5 }, 1, "1732950000004-0"),
    },
    {
      title: "the producer forgot the effect key",
      report: decided({ ...reminder("801", 1), effectKey: "" }, {}, 1, "1732950000005-0"),
    },
    {
      title: "a sequence sent as text",
      report: decided({ ...reminder("802", 1), sequence: "1" }, {}, 1, "1732950000006-0"),
    },
    {
      title: "a payload version nobody supports yet",
      report: decided(
        reminder("803", 1, { payload: { invoiceId: "803", schema: "2024-07" } }),
        {},
        1,
        "1732950000007-0",
      ),
    },
    {
      title: "an unknown kind",
      report: decided({ ...reminder("804", 1), kind: "invoice.dunning" }, {}, 1, "1732950000008-0"),
    },
    {
      title: "a payload that fails its schema",
      report: decided(reminder("805", 1, { payload: { invoiceId: 805, schema: "2021-03" } }), {}, 1, "1732950000009-0"),
    },
    {
      title: "hostile text in a payload (shown as text, never run)",
      report: decided(
        reminder("806", 1, {
          payload: {
            schema: "2021-03",
            invoiceId: "",
            note: "<script>alert('x')</script><img src=x onerror=alert(1)>",
          },
        }),
        {},
        1,
        "1732950000010-0",
      ),
    },
    {
      title: "a temporary error outlived its retry limit",
      report: afterRetries(
        reminder("901", 1),
        "dependency-not-ready",
        1,
        "dependency-not-ready: ledger for invoice 901 not yet created",
        "1732950000011-0",
      ),
    },
    {
      title: "the provider refused for good",
      report: afterRetries(
        reminder("902", 1),
        "provider-rejected",
        1,
        "422 recipient address rejected: mailbox does not exist",
        "1732950000012-0",
      ),
    },
  ];
}
