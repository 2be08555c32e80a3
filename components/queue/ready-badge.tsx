import { Badge } from "@/components/ui/badge";

/** True when the server marks the record ready: a held gap whose missing predecessors have been applied. */
export function isReady(item: object): boolean {
  // Read defensively: list items and the detail carry `ready` only on servers that know it.
  return "ready" in item && item.ready === true;
}

/** "ready" next to a held sequence-gap record whose predecessor has since been applied. */
export function ReadyBadge({ item }: { item: object }) {
  if (!isReady(item)) return null;
  return (
    <Badge tone="success" title="Ready: predecessor applied">
      ready<span className="rc-visually-hidden">: predecessor applied</span>
    </Badge>
  );
}
