import { type Actor } from "@/lib/access";
import { db } from "@/lib/db/client";
import { forbidden } from "@/lib/domain/refusal";
import { UTC } from "@/lib/time-zone";
import { type Preferences } from "./people-schema";

// A person's own settings, kept with their account: so far the zone they read and type times in
// (docs/decisions/0043-one-time-zone-rule.md). A token is no person and has none.

/**
 * The person whose preferences (or other belongings, such as saved views) these are; a token is
 * refused before anything is read.
 */
export function personOf(actor: Actor, belongings = "preferences"): string {
  if (actor.kind !== "user") throw forbidden("person-required", `${belongings} belong to a person; a token has none`);
  return actor.id;
}

export async function preferencesOf(actor: Actor): Promise<Preferences> {
  const user = await db().user.findUnique({ where: { id: personOf(actor) }, select: { timeZone: true } });
  return { timeZone: user?.timeZone ?? UTC };
}

export async function setPreferences(actor: Actor, preferences: Preferences): Promise<Preferences> {
  const user = await db().user.update({
    where: { id: personOf(actor) },
    data: { timeZone: preferences.timeZone },
    select: { timeZone: true },
  });
  return { timeZone: user.timeZone };
}
