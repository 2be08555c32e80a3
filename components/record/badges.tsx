import { Badge, type Tone } from "@/components/ui/badge";

export { CategoryBadge, StatusBadge } from "@/components/ui/review-badges";

// Journal and replay states; the word is always shown, colour only repeats it.
const STATE_TONES: Record<string, Tone> = {
  started: "violet",
  applied: "success",
  unknown: "danger",
  cancelled: "neutral",
  scheduled: "info",
  claimed: "violet",
  "duplicate-suppressed": "success",
  routed: "warning",
  failed: "danger",
};

export function StateBadge({ state }: { state: string }) {
  return <Badge tone={STATE_TONES[state] ?? "neutral"}>{state}</Badge>;
}

/** An instant in the person's zone, the zone named (components/ui/time-zone.tsx). */
export { Time } from "@/components/ui/time-zone";
