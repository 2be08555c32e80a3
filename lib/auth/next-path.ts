// Where to go after signing in. Isomorphic: the login page and its client form both use it.

/**
 * The default destination after signing in: the home page, which sends each role to its own
 * landing page (owners and support the overview, as the README says).
 */
export const HOME_PATH = "/";

/** `path` when it is a path of this site (`/x`; not `//host`, `/\host` or control characters), else null. */
export function safeNextPath(path: string | null | undefined): string | null {
  if (!path || !path.startsWith("/") || path.startsWith("//") || path.startsWith("/\\")) return null;
  for (const ch of path) {
    const code = ch.charCodeAt(0);
    if (code < 0x20 || code === 0x7f) return null;
  }
  return path;
}

/** `/login`, with `next` when it is a path of this site (never an open redirect). */
export function loginPath(next?: string | null): string {
  const target = safeNextPath(next);
  return target ? `/login?next=${encodeURIComponent(target)}` : "/login";
}
