import { cache } from "react";
import { forbidden as forbiddenRefusal } from "@/lib/domain/refusal";
import { recordForbidden } from "@/lib/audit";
import { sessionUser } from "./better-auth";
import { loginPath } from "./next-path";
import { type Grant, holdsPermission, type Permission } from "@/lib/access/client";

// The signed-in person for server components, pages and route handlers. API handlers go
// through authenticate() in ./authenticate.ts instead (tokens too, and the cross-site rule).
// Next's request APIs are loaded on first use, not with this module: lib/auth's face is also
// loaded by the console's own HTTP server (the intake fast path), outside Next, where
// next/headers refuses to load.
const headers = async () => (await import("next/headers")).headers();
const navigation = () => import("next/navigation");

export interface SessionUser {
  id: string;
  email: string;
  role: "owner" | "support" | "auditor" | "admin";
  /** The person's role_grants (ADR 0029): authorization reads these, not `role`. */
  grants: Grant[];
  /** The zone they read and type times in: `UTC` or an IANA name (ADR 0043). */
  timeZone: string;
}

// One session lookup per request, however many components ask.
const loadCurrentUser = cache(async (): Promise<SessionUser | null> => sessionUser(await headers()));

/** The signed-in person of the current request (server components, route handlers), or null. */
export async function currentUser(): Promise<SessionUser | null> {
  return loadCurrentUser();
}

/**
 * A page's refusal, once per request: a layout and its page both call requireUser, and one
 * visit is one refusal. Through recordForbidden, like every refused authorization: not written under the person's name when another
 * site sent their browser here (`Sec-Fetch-Site`), and repeats counted (ADR 0010).
 */
const refusePage = cache(async (user: SessionUser, permission: Permission, path: string | null): Promise<void> => {
  const refusal = forbiddenRefusal("forbidden", `role ${user.role} may not ${permission}`, {
    details: { ...(path === null ? { path: null } : {}), permission, userId: user.id },
  });
  await recordForbidden(refusal, {
    actor: { kind: "user", label: `user:${user.email}`, role: user.role },
    route: "page",
    method: "GET",
    ...(path !== null ? { path } : {}),
    fetchSite: (await headers()).get("sec-fetch-site"),
  });
});

/**
 * For server-component pages: redirects to /login?next=<path> when signed out; when none of the
 * person's grants allows `permission` anywhere (ADR 0030), records the refusal (refusePage) and renders Next's forbidden()
 * (app/forbidden.tsx).
 */
export async function requireUser(permission?: Permission, path?: string): Promise<SessionUser> {
  const user = await currentUser();
  if (!user) return (await navigation()).redirect(loginPath(path));
  if (permission && !holdsPermission(user.grants, permission)) {
    await refusePage(user, permission, path ?? null);
    return (await navigation()).forbidden();
  }
  return user;
}
