import type { Actor } from "./actor";

/**
 * `user:<id>` / `token:<id>`: who an actor is, stable and distinct, unlike its label (token names
 * may repeat, and a label says nothing about a person whose email changes). Operations and
 * automatic-replay switches keep it as their authority (lib/operations/authority.ts).
 */
export function actorRef(actor: Pick<Actor, "kind" | "id">): string {
  return `${actor.kind}:${actor.id}`;
}

/**
 * Who asks for a change to people or tokens, as the decision log names them: a person or token
 * of the console (`user:a@b`, with its role), or the CLI (`system:cli`, no role).
 */
export interface ChangeActor {
  label: string;
  role: string | null;
  /** `user:<id>` when a person asks: people may not disable themselves or change their own role. */
  ref: string | null;
}

export const CLI_ACTOR: ChangeActor = { label: "system:cli", role: null, ref: null };

export function changeActorOf(actor: Actor): ChangeActor {
  return { label: actor.label, role: actor.role, ref: actorRef(actor) };
}
