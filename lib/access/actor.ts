import { forbidden } from "@/lib/domain/refusal";
import { globalGrant, type Grant } from "./grant";
import type { Permission, Role } from "./roles";
import { holdsPermission } from "./scope-rules";

export interface Actor {
  kind: "token" | "user";
  id: string;
  /** How the actor appears in history and the decision log, e.g. `token:orders-worker`. */
  label: string;
  /** The headline role: a token's only role, a person's users.role. */
  role: Role;
  /**
   * What the actor may do where (ADR 0029): a token's role in its domain (or everywhere), a
   * person's role_grants. authenticate() always sets it; absent only on the system's own actors
   * (dispatcher, seed, tests), which hold their role everywhere (grantsOf).
   */
  grants?: Grant[];
  /**
   * The person behind it: a person's own id, the id of the person who issued a token (null: a
   * token of the CLI). Four eyes compare this, so a token never approves for its issuer's request.
   */
  person?: string | null;
}

/**
 * An actor of the system itself: the dispatcher acting for an operation (with its authority's
 * grants as they are now), automatic replay. Without `grants` it holds its role everywhere.
 */
export function systemActor(actor: {
  kind: Actor["kind"];
  id: string;
  label: string;
  role: Role;
  grants?: Grant[] | null;
}): Actor {
  const { grants, ...rest } = actor;
  return { ...rest, ...(grants ? { grants } : {}), person: null };
}

/** The actor's grants; the system's own actors (no `grants`) hold their role everywhere. */
export function grantsOf(actor: Pick<Actor, "role" | "grants">): Grant[] {
  return actor.grants ?? globalGrant(actor.role);
}

/**
 * Refuses (`forbidden`) unless one of the actor's grants allows it somewhere (ADR 0030: the coarse
 * check; what a route then reads or changes is checked against the record's domain), or, for a
 * permission only global grants carry (the decision log), everywhere. apiRoute
 * records the refusal like every refused authorization (lib/audit/refusal-log.ts).
 * `reviewId` links it to the record it was about, so the record's own log shows the refused attempt.
 */
export function authorize(actor: Pick<Actor, "role" | "grants">, permission: Permission, reviewId?: string): void {
  // may() without a target is this coarse check; kept inline: may.ts imports this module.
  if (holdsPermission(grantsOf(actor), permission)) return;
  const reason = `role ${actor.role} may not ${permission}`;
  throw forbidden("forbidden", reason, { reviewId: reviewId ?? null, details: { permission } });
}
