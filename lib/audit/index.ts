// lib/audit: The decision log: appending a decision (append-only, hash-chained), reading, exporting
// and verifying it, its checkpoints, and the log of refused requests. Its face
// (docs/decisions/0049-modules-in-order.md): what other code may import of it.

export { appendDecision, appendStandaloneDecision, type DecisionEntry } from "./append";
export {
  ARCHIVE_KIND,
  type ArchiveEntry,
  type ArchiveHeader,
  entryLine,
  headerLine,
  verifyArchiveText,
} from "./archive-file";
export {
  checkCheckpointsAgainstLog,
  createCheckpoint,
  latestStoredCheckpoint,
  type StoredCheckpoint,
} from "./checkpoint-store";
export {
  type Checkpoint,
  generateCheckpointKeys,
  loadPrivateKey,
  loadPublicKey,
  parseCheckpoints,
  signatureProblem,
  signCheckpoint,
} from "./checkpoint";
export { EXPORT_CHUNK, exportDecisions } from "./export";
export { distinctAuditValues, listDecisions, MAX_TERM_MATCHES, timeWindowAsSeq } from "./list";
export { flushRefusals, recordForbidden, REFUSAL_WINDOW_SECONDS, refusedRequest } from "./refusal-log";
export { AUDIT_ENTRY_FIELDS, type AuditEntry, auditExportQuerySchema, auditListQuerySchema } from "./schema";
export { type ChainVerdict, entryHash, formatEntryTime, GENESIS_HASH, VERIFY_BATCH, verifyDecisionLog } from "./verify";
