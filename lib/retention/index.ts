// lib/retention: What is kept how long: archiving finished records and the decision log's old
// partitions. Its face (docs/decisions/0049-modules-in-order.md): what other code may import of it.

export { archivedRecordRefusal } from "./finished-lookup";
export { addMonths, archiveFinishedRecords, finishedRecordsCutoff, retentionMonthsFromEnv } from "./finished-records";
export { archiveDecisionLog, type ArchivedMonth, spanOf, writeMonthFile } from "./log-archive";
