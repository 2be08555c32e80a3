import { forbidden, Refusal } from "@/lib/domain/refusal";
import { sessionUser } from "@/lib/auth/better-auth";
import { findTokenActor } from "@/lib/auth/tokens";
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
 * Resolves who is calling. Programs send `Authorization: Bearer <token>`; people in the console
 * send their session cookie, and a cookie request that changes something must come from this
 * site (refuseCrossSite, which apiRoute applies next). Any other Authorization scheme (a proxy's Basic credential) is
 * left alone: the cookie decides.
 */
export async function authenticate(request: Request): Promise<Actor> {
  const header = request.headers.get("authorization");
  if (header && /^\s*Bearer(\s|$)/i.test(header)) {
    const match = /^\s*Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match?.[1]) throw unauthenticated("the bearer token is malformed");
    const token = await findTokenActor(match[1]);
    if (!token) throw unauthenticated("the token is unknown, revoked or expired");
    return {
      kind: "token",
      id: token.id,
      label: `token:${token.name}`,
      role: token.role,
      grants: [{ role: token.role, domain: token.domain }],
      person: token.person,
    };
  }
  const user = await sessionUser(request.headers, request.url);
  if (!user) {
    throw unauthenticated("sign in, or send Authorization: Bearer <token>");
  }
  return {
    kind: "user",
    id: user.id,
    label: `user:${user.email}`,
    role: user.role,
    grants: user.grants,
    person: user.id,
  };
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

function unauthenticated(message: string): Refusal {
  return new Refusal("unauthenticated", "unauthenticated", message);
}

/**
 * Refuses (`forbidden`) unless one of the actor's grants allows it somewhere (ADR 0030: the coarse
 * check; what a route then reads or changes is checked against the record's domain), or, for a
 * permission only global grants carry (the decision log), everywhere. apiRoute
 * records the refusal like every refused authorization (lib/http/refusal-response.ts).
 * `reviewId` links it to the record it was about, so the record's own log shows the refused attempt.
 */
export function authorize(actor: Pick<Actor, "role" | "grants">, permission: Permission, reviewId?: string): void {
  // may() without a target is this coarse check; kept inline: may.ts imports this module.
  if (holdsPermission(grantsOf(actor), permission)) return;
  const reason = `role ${actor.role} may not ${permission}`;
  throw forbidden("forbidden", reason, { reviewId: reviewId ?? null, details: { permission } });
}
