// The decision log as the API serves it (GET /api/v1/audit, /audit/verification).

export interface AuditEntry {
  /** A number today; a string is accepted should the API ever send a bigint as text. */
  seq: number | string;
  at: string;
  actor: string;
  actorRole: string | null;
  action: string;
  reviewId: string | null;
  effectKey: string | null;
  reason: string | null;
  details: unknown;
  prevHash: string;
  hash: string;
}

export interface AuditPage {
  items: AuditEntry[];
  nextCursor: string | null;
}

export interface ChainVerification {
  ok: boolean;
  entries: number;
  /** The first entry that breaks the chain (`"head"` when the chain's head row is missing). */
  brokenSeq?: number | string;
  problem?: string;
  checkedAt: string;
}
