import { invalidField } from "@/lib/domain/refusal";
import type { SelectionInput } from "./schema";

// A filter selection may name its assignee as `me` (the queue's "Mine", ADR 0028). An operation
// keeps what it selected, and its selection is shown to anyone who reads it later, so `me` is
// replaced by the creator's person id before the selection is frozen, stored or logged: the
// operation then says whose records it took, whoever reads it.

/** The person a selection's `me` means: the signed-in person's id, or null for a token. */
export type SelectingPerson = { id: string } | null;

/**
 * The selection with `assignee: "me"` replaced by the person's id; an id is lower-cased, as the
 * list does. `me` without a person (a token) is a 400 naming the field: a token names the person.
 */
export function resolveSelection(selection: SelectionInput, person: SelectingPerson): SelectionInput {
  if (selection.type !== "filter" || selection.filter.assignee === undefined) return selection;
  const { assignee } = selection.filter;
  if (assignee === "none") return selection;
  if (assignee !== "me") return { ...selection, filter: { ...selection.filter, assignee: assignee.toLowerCase() } };
  if (!person) {
    throw invalidField("selection.filter.assignee", "me needs a signed-in person; a token names the person by id");
  }
  return { ...selection, filter: { ...selection.filter, assignee: person.id } };
}
