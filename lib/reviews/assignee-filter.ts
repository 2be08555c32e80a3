import { type Actor } from "@/lib/access";
import { invalidField } from "@/lib/domain/refusal";

/** `assignee=me|none|<id>` as the list and its count filter: `me` is the caller, who must be a person. */
export function assigneeIdOf(assignee: string | undefined, actor: Actor): string | null | undefined {
  if (assignee === undefined) return undefined;
  if (assignee === "none") return null;
  if (assignee !== "me") return assignee.toLowerCase();
  if (actor.kind !== "user")
    throw invalidField("assignee", "me needs a signed-in person; a token names the person by id");
  return actor.id;
}
