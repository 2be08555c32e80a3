import type { AuditEntry as ServedAuditEntry } from "@/lib/audit";

// The decision log as the API serves it (GET /api/v1/audit, /audit/verification).

/** The server's entry, but `seq`: a number today; a string is accepted should the API ever send a bigint as text. */
export type AuditEntry = Omit<ServedAuditEntry, "seq"> & { seq: number | string };

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
