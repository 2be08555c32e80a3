import { headers } from "next/headers";
import { forbidden, redirect } from "next/navigation";
import { cache } from "react";
import { appendStandaloneDecision } from "@/lib/audit/append";
import { sessionUser } from "./better-auth";
import { loginPath } from "./next-path";
import { can, type Permission } from "./roles";

// The signed-in person for server components, pages and route handlers. API handlers go
// through authenticate() in ./actor.ts instead (tokens too, and the cross-site rule).

export interface SessionUser {
  id: string;
  email: string;
  role: "owner" | "support" | "auditor" | "admin";
}

// One session lookup per request, however many components ask.
const loadCurrentUser = cache(async (): Promise<SessionUser | null> => sessionUser(await headers()));

/** The signed-in person of the current request (server components, route handlers), or null. */
export async function currentUser(): Promise<SessionUser | null> {
  return loadCurrentUser();
}

/**
 * For server-component pages: redirects to /login?next=<path> when signed out; when the role
 * lacks `permission`, writes an `authorization.refused` decision-log entry and renders Next's
 * forbidden() (app/forbidden.tsx).
 */
export async function requireUser(permission?: Permission, path?: string): Promise<SessionUser> {
  const user = await currentUser();
  if (!user) redirect(loginPath(path));
  if (permission && !can(user.role, permission)) {
    await appendStandaloneDecision({
      actor: `user:${user.email}`,
      actorRole: user.role,
      action: "authorization.refused",
      reason: `role ${user.role} may not ${permission}`,
      details: { method: "GET", path: path ?? null, permission, userId: user.id },
    });
    forbidden();
  }
  return user;
}
