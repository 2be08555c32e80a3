import type { RecordOperationRef } from "@/lib/operations/client";
import type { AssigneeRef, ReviewListItem } from "@/lib/reviews";

// The answer of GET /api/v1/reviews/{id} as the console reads it. JSON columns stay `unknown`
// and are narrowed where they are shown: a message may be anything a producer sent.

export interface ReviewRevision {
  number: number;
  envelope: unknown;
  reason: string;
  createdBy: string;
  createdAt: string;
}

export interface ReviewHistoryEntry {
  id: number;
  at: string;
  actor: string;
  action: string;
  fromStatus: string | null;
  toStatus: string | null;
  reason: string | null;
  details: unknown;
}

export interface ReviewReplay {
  id: string;
  revisionNumber: number;
  state: string;
  runAt: string;
  claimedBy: string | null;
  claimExpiresAt: string | null;
  detail: string | null;
  createdBy: string;
  createdAt: string;
  completedAt: string | null;
}

export interface JournalEntry {
  effectKey: string;
  state: string;
  messageId: string | null;
  sequenceKey: string | null;
  sequence: number | null;
  providerRef: string | null;
  leaseExpiresAt: string | null;
  startedAt: string;
  updatedAt: string;
}

export interface SequenceStateEntry {
  sequenceKey: string;
  lastSequence: number;
  updatedAt: string;
}

/** Another open record of the same sequenceKey. */
export interface HeldRecord {
  id: string;
  sequence: number | null;
  status: string;
  category: string;
  reason: string;
}

/** The list's item (`ready` optional here: older servers omit it) and what only the detail has. */
export interface ReviewDetail extends Omit<ReviewListItem, "ready" | "assignee"> {
  /** Who the record is assigned to (ADR 0028); optional here like `ready`: older servers omit it. */
  assignee?: AssigneeRef | null;
  /** The domain of the record's kind, or null (ADR 0030); optional: older servers omit it. */
  domain?: string | null;
  reportCount: number;
  lastError: string | null;
  payloadSchema: string | null;
  source: unknown;
  updatedAt: string;
  /** The message as JSON text, exactly as the consumer sent it. */
  messageText: string;
  /** The same message, parsed. */
  message: unknown;
  revisions: ReviewRevision[];
  history: ReviewHistoryEntry[];
  replays: ReviewReplay[];
  journal: JournalEntry | null;
  sequenceState: SequenceStateEntry | null;
  heldOnKey?: HeldRecord[];
  /** A held gap whose missing predecessors have been applied (optional: older servers omit it). */
  ready?: boolean;
  /** The bulk operations this record belongs to (optional: older servers omit it). */
  operations?: RecordOperationRef[];
  /** The actions an approval policy would hold for a second person (optional: older servers omit it). */
  approvalNeeded?: string[];
}

export function detailPath(id: string): string {
  return `/api/v1/reviews/${encodeURIComponent(id)}`;
}
