import { forbidden, Refusal } from "@/lib/domain/refusal";
import { requestOrigin, sessionUser } from "./better-auth";
import { holdsPermission } from "@/lib/domains/scope-rules";
import { globalGrant, type Grant } from "@/lib/domains/grant";
import type { Permission, Role } from "./roles";
import { findTokenActor } from "./tokens";

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

/** The actor's grants; the system's own actors (no `grants`) hold their role everywhere. */
export function grantsOf(actor: Pick<Actor, "role" | "grants">): Grant[] {
  return actor.grants ?? globalGrant(actor.role);
}

function unauthenticated(message: string): Refusal {
  return new Refusal("unauthenticated", "unauthenticated", message);
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * CSRF rule for cookie-authenticated requests (docs/api.md): a request that may change something is
 * refused (403 `cross-site`) when its `Origin` is present and not this site's, or when the
 * browser says `Sec-Fetch-Site: cross-site`. Browsers send `Origin` on every cross-origin POST
 * and set Sec-Fetch-Site themselves, and a page cannot forge either. Another site's page made
 * the person's browser send it, so the refusal goes to the application log only, never into
 * the decision log under the person's name (ADR 0010). Bearer requests carry no ambient
 * credential and are exempt.
 */
export function refuseCrossSite(actor: Actor, request: Request): void {
  if (actor.kind !== "user") return;
  if (SAFE_METHODS.has(request.method.toUpperCase())) return;
  const origin = request.headers.get("origin");
  const site = request.headers.get("sec-fetch-site");
  const foreignOrigin = origin !== null && !ownOrigins(request).has(origin);
  if (!foreignOrigin && site?.toLowerCase() !== "cross-site") return;
  const reason = foreignOrigin
    ? `cross-site request refused: Origin ${origin} is not this site`
    : "cross-site request refused: Sec-Fetch-Site is cross-site";
  throw forbidden("cross-site", "a signed-in request that changes something must come from this site", {
    reason,
    details: { rule: "cross-site", origin: origin?.slice(0, 300) ?? null, secFetchSite: site?.slice(0, 50) ?? null },
    crossSite: true,
  });
}

/** This site: the origin the request was addressed to, and BETTER_AUTH_URL's when it is set. */
function ownOrigins(request: Request): Set<string> {
  const origins = new Set([requestOrigin(request.headers, request.url), new URL(request.url).origin]);
  const configured = process.env.BETTER_AUTH_URL;
  if (configured) {
    try {
      origins.add(new URL(configured).origin);
    } catch {
      // An unparsable BETTER_AUTH_URL is Better Auth's error to report, not ours.
    }
  }
  return origins;
}

/**
 * Refuses (`forbidden`) unless one of the actor's grants allows it somewhere (ADR 0030: the coarse
 * check; what a route then reads or changes is checked against the record's domain), or, for a
 * permission only global grants carry (the decision log), everywhere. apiRoute
 * records the refusal like every refused authorization (lib/http/refusal-response.ts).
 * `reviewId` links it to the record it was about, so the record's own log shows the refused attempt.
 */
export function authorize(actor: Pick<Actor, "role" | "grants">, permission: Permission, reviewId?: string): void {
  if (holdsPermission(grantsOf(actor), permission)) return;
  const reason = `role ${actor.role} may not ${permission}`;
  throw forbidden("forbidden", reason, { reviewId: reviewId ?? null, details: { permission } });
}
