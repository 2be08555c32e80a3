import { db } from "@/lib/db/client";
import { ALL_RECORDS, type RecordScope, scopeCondition } from "@/lib/access";
import { selectionCondition } from "./create";
import { MAX_SELECTION, type SelectionInput, selectionSchema } from "./schema";
import { resolveSelection, type SelectingPerson } from "./selection";
import type { Selection } from "./types";

/**
 * How many records a selection holds now, for the new-operation form to show before anything is
 * created: read with the same condition and the same cap as the freeze (one past the maximum,
 * so a count stays cheap on a large table and an oversized selection is said before creating).
 * Within `scope`: the records the person may see, as the freeze reads them (ADR 0030).
 * `null` when the selection is not one the API would take (the form then shows the server's refusal).
 * `person`: whom the selection's `assignee: me` means (the signed-in person reading the form).
 */
export async function countSelection(
  selection: Selection,
  person: SelectingPerson,
  scope: RecordScope = ALL_RECORDS,
): Promise<{ count: number; tooLarge: boolean } | null> {
  const parsed = selectionSchema.safeParse(selection);
  if (!parsed.success) return null;
  let resolved: SelectionInput;
  try {
    resolved = resolveSelection(parsed.data, person);
  } catch {
    return null;
  }
  const [row] = await db().$queryRaw<{ n: bigint }[]>`
    SELECT count(*) AS n FROM (SELECT 1 FROM review_records WHERE ${selectionCondition(resolved, scope)} ${scopeCondition(scope)}
                                LIMIT ${MAX_SELECTION + 1}) AS capped`;
  const n = Number(row?.n ?? 0);
  return { count: Math.min(n, MAX_SELECTION), tooLarge: n > MAX_SELECTION };
}
