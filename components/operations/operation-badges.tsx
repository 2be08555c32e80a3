import { Badge } from "@/components/ui/badge";
import type { OperationOutcome, ItemState, OperationState, Verdict } from "@/lib/operations/client";
import { ITEM_STATE_TONE, STATE_TONE, VERDICT_MEANING, VERDICT_TONE } from "./model";

// The word is always shown; the colour only repeats it. Unknown values (a newer server) still render.

/**
 * `outcome`: what became of its records. A completed operation that applied nothing is not a
 * success, and does not look like one.
 */
export function OperationStateBadge({ state, outcome }: { state: OperationState; outcome?: OperationOutcome }) {
  if (state === "completed" && outcome && outcome.applied === 0) {
    return <Badge tone="warning">completed: nothing applied</Badge>;
  }
  return <Badge tone={STATE_TONE[state] ?? "neutral"}>{state}</Badge>;
}

export function ItemStateBadge({ state }: { state: ItemState }) {
  return <Badge tone={ITEM_STATE_TONE[state] ?? "neutral"}>{state}</Badge>;
}

export function VerdictBadge({ verdict }: { verdict: Verdict }) {
  return (
    <Badge tone={VERDICT_TONE[verdict] ?? "neutral"} title={VERDICT_MEANING[verdict]}>
      {verdict}
    </Badge>
  );
}
