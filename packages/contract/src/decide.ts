import { contractKeysSchema, envelopeSchema, isRecord, readEnvelopeKeys, type Envelope } from "./envelope.ts";
import { toIssues, type ContractIssue } from "./issues.ts";
import { defaultKindRegistry, supportedVersions, validatePayload, type KindRegistry } from "./kinds.ts";
import {
  gapCheck,
  invalidContractCheck,
  invalidPayloadCheck,
  missingKindCheck,
  staleCheck,
  unknownEffectCheck,
  unknownKindCheck,
  unsupportedSchemaCheck,
} from "./required-check.ts";

export type JournalState = "started" | "applied" | "unknown" | "cancelled";

export interface DecisionState {
  /** Last applied sequence of this sequenceKey, 0 when none. */
  lastSequence: number;
  /** Journal entry for this effectKey, null when none. */
  journal: { state: JournalState; leaseExpiresAt: Date | null } | null;
  /** Sequences of this sequenceKey whose effect is `started` with an unexpired lease. */
  inFlightSequences: number[];
  now: Date;
}

export const REVIEW_CATEGORIES = ["manual-review", "sequence-gap", "effect-result-unknown"] as const;
export type ReviewCategory = (typeof REVIEW_CATEGORIES)[number];

export const KNOWN_REASONS = [
  "invalid-contract",
  "unsupported-schema",
  "invalid-payload",
  "stale-or-conflicting",
  "sequence-gap",
  "effect-result-unknown",
  "retry-limit",
] as const;
export type KnownReason = (typeof KNOWN_REASONS)[number];

export type Decision =
  | { outcome: "apply-and-record"; envelope: Envelope }
  | {
      outcome: "duplicate-suppressed";
      envelope: Envelope;
      because: "sequence-already-applied" | "effect-already-recorded";
    }
  | { outcome: "wait"; reason: "effect-in-flight" | "predecessor-in-flight"; envelope: Envelope }
  | {
      outcome: "review";
      category: ReviewCategory;
      reason: string;
      requiredCheck: string;
      issues?: ContractIssue[];
      missing?: { from: number; to: number };
    };

export type ReviewDecision = Extract<Decision, { outcome: "review" }>;

function review(reason: KnownReason, requiredCheck: string, issues?: ContractIssue[]): ReviewDecision {
  return issues === undefined
    ? { outcome: "review", category: "manual-review", reason, requiredCheck }
    : { outcome: "review", category: "manual-review", reason, requiredCheck, issues };
}

// Rule 1. Only the keys the decision itself depends on; `kind` is rule 2's.
function checkContract(raw: unknown): ReviewDecision | null {
  const id = readEnvelopeKeys(raw).id;
  if (!isRecord(raw)) {
    const issues = [{ path: "", message: "the message must be a JSON object" }];
    return review("invalid-contract", invalidContractCheck(id, issues), issues);
  }
  const result = contractKeysSchema.safeParse(raw);
  if (result.success) return null;
  const issues = toIssues(result.error);
  return review("invalid-contract", invalidContractCheck(id, issues), issues);
}

// Rule 2.
function checkPayload(raw: Record<string, unknown>, registry: KindRegistry): ReviewDecision | null {
  const keys = readEnvelopeKeys(raw);
  if (keys.kind === null) {
    const issues = [{ path: "kind", message: "must be a non-empty string" }];
    return review("unsupported-schema", missingKindCheck(keys.id), issues);
  }
  const result = validatePayload(registry, keys.kind, raw.payload);
  if (result.ok) return null;
  const def = registry.get(keys.kind);
  if (result.reason === "invalid-payload") {
    // Rule 1 passed, so id is present; the version is the one that was found.
    const check = invalidPayloadCheck(keys.id ?? "", keys.kind, keys.schema ?? "", result.issues);
    return review("invalid-payload", check, result.issues);
  }
  const check =
    def === undefined
      ? unknownKindCheck(keys.kind, keys.id, registry.kinds())
      : unsupportedSchemaCheck(def, keys.schema, supportedVersions(def));
  return review("unsupported-schema", check, result.issues);
}

// A lease that ends exactly now is over: a live lease must still have time left,
// and treating the boundary as expired routes to review instead of waiting on a
// worker whose claim has run out.
function leaseIsLive(leaseExpiresAt: Date | null, now: Date): boolean {
  return leaseExpiresAt !== null && now.getTime() < leaseExpiresAt.getTime();
}

// Rules 3–6, for an envelope that is known to be valid.
function decideValid(envelope: Envelope, state: DecisionState, registry: KindRegistry): Decision {
  const { sequence, sequenceKey } = envelope;
  const last = state.lastSequence;
  const journal = state.journal;
  const recorded = journal !== null && (journal.state === "applied" || journal.state === "cancelled");

  if (sequence <= last) {
    if (recorded) return { outcome: "duplicate-suppressed", envelope, because: "sequence-already-applied" };
    // Never applied: a stale message must not move the object back.
    return review("stale-or-conflicting", staleCheck(sequence, sequenceKey, last));
  }

  if (sequence > last + 1) {
    const from = last + 1;
    const to = sequence - 1;
    if (from === to && state.inFlightSequences.includes(from)) {
      return { outcome: "wait", reason: "predecessor-in-flight", envelope };
    }
    return {
      outcome: "review",
      category: "sequence-gap",
      reason: "sequence-gap",
      requiredCheck: gapCheck(from, to, sequenceKey),
      missing: { from, to },
    };
  }

  if (journal !== null) {
    if (recorded) return { outcome: "duplicate-suppressed", envelope, because: "effect-already-recorded" };
    if (journal.state === "started" && leaseIsLive(journal.leaseExpiresAt, state.now)) {
      return { outcome: "wait", reason: "effect-in-flight", envelope };
    }
    // Started past its lease, or unknown: the provider may have acted, so a
    // re-execution could create the effect twice.
    return {
      outcome: "review",
      category: "effect-result-unknown",
      reason: "effect-result-unknown",
      requiredCheck: unknownEffectCheck(envelope, registry.get(envelope.kind)),
    };
  }

  return { outcome: "apply-and-record", envelope };
}

export function decide(raw: unknown, state: DecisionState, registry: KindRegistry = defaultKindRegistry): Decision {
  const invalid = checkContract(raw);
  if (invalid !== null) return invalid;
  // checkContract returned null, so raw is an object.
  const record = raw as Record<string, unknown>;
  const unsupported = checkPayload(record, registry);
  if (unsupported !== null) return unsupported;
  // Rules 1–2 cover every field of the envelope schema; this parse only turns the
  // checked message into a typed Envelope, and its failure is still a contract failure.
  const parsed = envelopeSchema.safeParse(record);
  if (!parsed.success) {
    const issues = toIssues(parsed.error);
    return review("invalid-contract", invalidContractCheck(readEnvelopeKeys(record).id, issues), issues);
  }
  return decideValid(parsed.data, state, registry);
}
