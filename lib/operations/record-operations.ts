import { db } from "@/lib/db/client";
import type { ItemState, OperationAction, OperationState, RecordOperationRef } from "./types";

/** The operations a record belongs to, newest first (the record page links them). */
export async function operationsOfRecord(reviewId: string): Promise<RecordOperationRef[]> {
  const rows = await db().$queryRawUnsafe<
    { operation_id: string; action: OperationAction; state: OperationState; item_state: ItemState; position: number }[]
  >(
    `SELECT o.id::text AS operation_id, o.action::text, o.state::text, i.state::text AS item_state, i.position
       FROM bulk_operation_items i JOIN bulk_operations o ON o.id = i.operation_id
      WHERE i.review_id = $1::uuid ORDER BY o.seq DESC LIMIT 20`,
    reviewId,
  );
  return rows.map((r) => ({
    operationId: r.operation_id,
    action: r.action,
    operationState: r.state,
    itemState: r.item_state,
    position: r.position,
  }));
}
