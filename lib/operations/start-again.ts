import { db } from "@/lib/db/client";
import { unprocessable } from "@/lib/domain/refusal";
import type { Prisma } from "@/lib/generated/prisma/client";
import type { SelectionInput } from "./schema";
import { LIVE_OPERATION_STATES, type OperationState } from "./types";

// Starting again on what an operation left (SQS redrive, ServicePulse's retry group): a new
// operation whose selection is `{type: "unfinished", operationId}`, frozen, dry-run and confirmed
// like any other. Only an ended operation may be started again on: a live one still dispatches
// its pending records, and two operations sending the same record is what the freeze prevents.

type Reader = Pick<Prisma.TransactionClient, "$queryRaw">;

/** Why this operation's unfinished records cannot be selected now; null when they can. */
export async function startAgainProblem(operationId: string, tx: Reader = db()): Promise<string | null> {
  const [source] = await tx.$queryRaw<{ state: OperationState }[]>`
    SELECT state::text AS state FROM bulk_operations WHERE id = ${operationId}::uuid`;
  if (!source) return `no operation ${operationId}`;
  if (LIVE_OPERATION_STATES.includes(source.state)) {
    return `operation ${operationId} is ${source.state}: start again once it has completed or been aborted`;
  }
  return null;
}

/** A 422 naming `selection.operationId` when the selection starts again on an operation that may not be. */
export async function checkStartAgain(tx: Reader, selection: SelectionInput): Promise<void> {
  if (selection.type !== "unfinished") return;
  const problem = await startAgainProblem(selection.operationId, tx);
  if (problem) {
    throw unprocessable("operation-not-ended", problem, {
      issues: [{ path: "selection.operationId", message: problem }],
    });
  }
}
