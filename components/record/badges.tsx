import { Badge, type Tone } from "@/components/ui/badge";
import { formatUtc } from "@/components/ui/time";

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

/** A UTC timestamp, the same text on the server and in the browser. */
export function Time({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span>—</span>;
  return (
    <time dateTime={iso} title={iso}>
      {formatUtc(iso)}
    </time>
  );
}
