// lib/reviews: Review records: intake (a report, a batch, the coalescer), the queue's lists,
// counts, groups and filters, and the rules of which action a record allows. Its face
// (docs/decisions/0049-modules-in-order.md): what other code may import of it, with the browser-
// safe part from ./client.ts.

export * from "./client";
export { assigneeIdOf } from "./assignee-filter";
export { correctedEnvelope } from "./corrected-envelope";
export { sharedKeyRefusal } from "./cross-domain";
export { reviewFilterSql } from "./filter-sql";
export { type GroupEstimate, groupsQuerySchema, type ReviewGroup, reviewGroups } from "./groups";
export { IntakeCoalescer } from "./intake-coalescer";
export { INTAKE_STATEMENT_NAME } from "./intake-statement";
export {
  intakeCoalescer,
  intakeOutcomes,
  intakeReport,
  intakeReports,
  intakeRoundQueryOf,
  isRefused,
  messageKeyOf,
  type Report,
} from "./intake";
export { type AssigneeRef, countReviews, listReviews, type ReviewListItem, type ReviewQueueItem } from "./list";
export { withParsedMessage } from "./message-text";
export { rawMessageOf, rawMessagesOfRecords } from "./raw-messages";
export { reviewStats, type ReviewStats } from "./stats";
