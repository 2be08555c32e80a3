import { Badge } from "@/components/ui/badge";

/** Who a list item is assigned to, read defensively: servers before ADR 0028 send no `assignee`. */
function assigneeOf(item: object): { name: string; email: string } | null {
  if (!("assignee" in item) || !item.assignee || typeof item.assignee !== "object") return null;
  const { name, email } = item.assignee as { name?: unknown; email?: unknown };
  return { name: typeof name === "string" ? name : "", email: typeof email === "string" ? email : "" };
}

/** The assignee of a queue row, by name (email when it has none); nothing when unassigned. */
export function AssigneeBadge({ item }: { item: object }) {
  const assignee = assigneeOf(item);
  if (!assignee) return null;
  const label = assignee.name || assignee.email;
  return (
    <Badge tone="neutral" title={`Assigned to ${assignee.email}`}>
      <span className="rc-visually-hidden">assigned to </span>
      {label}
    </Badge>
  );
}
