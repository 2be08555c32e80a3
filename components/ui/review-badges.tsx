import { Badge, type Tone } from "./badge";

// The review record's status and category as badges, so the queue and the record page show
// them the same way. Unknown values (a newer server) still render, in the neutral tone.

const STATUS_TONES: Record<string, Tone> = {
  open: "info",
  "replay-scheduled": "violet",
  replaying: "warning",
  resolved: "success",
  cancelled: "neutral",
};

const CATEGORY_TONES: Record<string, Tone> = {
  "manual-review": "neutral",
  "sequence-gap": "violet",
  "effect-result-unknown": "danger",
};

/** `open`, `replay-scheduled`, `replaying`, `resolved`, `cancelled`. */
export function StatusBadge({ status }: { status: string }) {
  return <Badge tone={STATUS_TONES[status] ?? "neutral"}>{status}</Badge>;
}

/** `manual-review`, `sequence-gap`, `effect-result-unknown`. */
export function CategoryBadge({ category }: { category: string }) {
  return <Badge tone={CATEGORY_TONES[category] ?? "neutral"}>{category}</Badge>;
}
