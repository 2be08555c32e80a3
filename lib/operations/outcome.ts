// Isomorphic: what became of an operation's records, in the words a person reads.
// `byState` counts every item state; this folds them into the outcomes that add up to `total`, so
// an aborted or partly finished operation never reads as "all final" when most were never sent.
import type { ItemState } from "./types";

export interface OperationOutcome {
  /** The action took effect: applied, suppressed as a duplicate (the effect already existed), or done. */
  applied: number;
  /** Replays that ended held again (routed back for review) or failed. */
  heldAgain: number;
  /** Dispatched, then taken back: a replay withdrawn by an abort, or its record cancelled meanwhile. */
  withdrawn: number;
  /** Refused when its turn came: the record changed since the freeze. */
  skipped: number;
  /** Never dispatched: the operation was aborted first. */
  neverSent: number;
  /** Still to happen: pending, or dispatched and waiting for its outcome. */
  waiting: number;
}

export const OUTCOME_OF_ITEM_STATE: Record<ItemState, keyof OperationOutcome> = {
  applied: "applied",
  "duplicate-suppressed": "applied",
  done: "applied",
  "held-again": "heldAgain",
  failed: "heldAgain",
  withdrawn: "withdrawn",
  cancelled: "withdrawn",
  skipped: "skipped",
  "not-dispatched": "neverSent",
  pending: "waiting",
  dispatched: "waiting",
};

/**
 * The item states of what an ended operation did not finish: held again or failed, withdrawn or
 * cancelled, skipped, never sent. Only "applied" is done and only "waiting" may still finish,
 * so these are what a person starts again on (a selection of type `unfinished`); each new
 * record's verdict is then read afresh by the new operation's dry run.
 */
export const UNFINISHED_ITEM_STATES: readonly ItemState[] = (
  Object.entries(OUTCOME_OF_ITEM_STATE) as [ItemState, keyof OperationOutcome][]
)
  .filter(([, part]) => part !== "applied" && part !== "waiting")
  .map(([state]) => state);

/** How many of an operation's records a start-again would select (see UNFINISHED_ITEM_STATES). */
export function unfinishedCount(byState: Partial<Record<ItemState, number>>): number {
  return UNFINISHED_ITEM_STATES.reduce((sum, state) => sum + (byState[state] ?? 0), 0);
}

/** The outcome split of `byState`; the parts add up to the items counted (the operation's `total`). */
export function operationOutcome(byState: Partial<Record<ItemState, number>>): OperationOutcome {
  const outcome: OperationOutcome = { applied: 0, heldAgain: 0, withdrawn: 0, skipped: 0, neverSent: 0, waiting: 0 };
  for (const [state, n] of Object.entries(byState) as [ItemState, number | undefined][]) {
    const part = OUTCOME_OF_ITEM_STATE[state];
    if (part && n) outcome[part] += n;
  }
  return outcome;
}
