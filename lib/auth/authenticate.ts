import { type Actor } from "@/lib/access";
import { Refusal } from "@/lib/domain/refusal";
import { sessionUser } from "./better-auth";
import { findTokenActor } from "./tokens";

// Who is calling (authentication), as the one Actor that lib/access then asks everything of
// (docs/decisions/0037-one-access-module.md). Here, not in lib/access, so that access reads no
// session or token table and lib/auth may read access's rules (docs/decisions/0046-layers-of-lib.md).

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

function unauthenticated(message: string): Refusal {
  return new Refusal("unauthenticated", "unauthenticated", message);
}
