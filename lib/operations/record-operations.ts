import { db } from "@/lib/db/client";
import { type Grant, operationScopeCondition } from "@/lib/access";
import type { RecordOperationRef } from "./types";

/**
 * The operations a record belongs to that `reader` may open, newest first (the record page links
 * them): an operation over other domains too would answer the reader 404, so it is not named.
 */
export async function operationsOfRecord(reviewId: string, reader: readonly Grant[]): Promise<RecordOperationRef[]> {
  return db().$queryRaw<RecordOperationRef[]>`
    SELECT o.id::text AS "operationId", o.action::text AS action, o.state::text AS "operationState",
           i.state::text AS "itemState", i.position
      FROM bulk_operation_items i JOIN bulk_operations o ON o.id = i.operation_id
     WHERE i.review_id = ${reviewId}::uuid ${operationScopeCondition(reader)} ORDER BY o.seq DESC LIMIT 20`;
}
