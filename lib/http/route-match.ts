// Which route of app/ (pages and route handlers) a raw path is, before Next has routed it: the
// proxy names the parameter of a path Next cannot decode, the request metrics label by route.
// The list is generated from the files (scripts/generate-routes.ts).

import { APP_ROUTES } from "./app-routes.generated";

export { APP_ROUTES };

const PARSED = APP_ROUTES.map((route) => ({ route, parts: route.split("/").filter(Boolean) }));

const isCatchAll = (part: string) => part.startsWith("[...");
const isDynamic = (part: string) => part.startsWith("[");

function decoded(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/** Lexicographic: the first segment where two routes differ decides. */
function precedes(a: number[], b: number[]): boolean {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return a.length > b.length;
}

/**
 * The route `pathname` (as sent, percent-encoded) goes to, by Next's precedence: segment by
 * segment from the left, a static segment before a dynamic one before a catch-all. Null when
 * no route takes it (a 404).
 */
export function matchRoute(pathname: string): string | null {
  const segments = pathname.split("/").filter(Boolean);
  let best: { route: string; rank: number[] } | null = null;
  for (const { route, parts } of PARSED) {
    const catchAll = parts.length > 0 && isCatchAll(parts.at(-1)!);
    if (catchAll ? segments.length < parts.length : segments.length !== parts.length) continue;
    const rank: number[] = [];
    const matches = parts.every((part, i) => {
      rank.push(isCatchAll(part) ? 2 : isDynamic(part) ? 1 : 0);
      return isDynamic(part) || decoded(segments[i]!) === part;
    });
    if (!matches) continue;
    if (!best || precedes(rank, best.rank)) best = { route, rank };
  }
  return best?.route ?? null;
}

/**
 * Next decodes each dynamic segment with decodeURIComponent before the route sees it, and a
 * segment that is not UTF-8 once decoded (`/api/v1/operations/auto-replay/%ED%A0%80`, the bytes
 * of a lone surrogate) makes it throw and answer a bare 500. When a segment of `pathname` does
 * not decode: the parameter it would have been (`kind`), or `path` when it is none.
 */
export function undecodablePath(pathname: string): { field: string; segment: string } | null {
  const segments = pathname.split("/").filter(Boolean);
  const index = segments.findIndex((segment) => decoded(segment) === null);
  if (index < 0) return null;
  // The route the path would take were the segment any name: a parameter of that route names it.
  const probe = segments.map((s, i) => (i === index ? "%00" : s));
  const route = matchRoute(`/${probe.join("/")}`);
  const parts = route?.split("/").filter(Boolean) ?? [];
  // Past the route's last part only a catch-all takes the segment.
  const part = index < parts.length ? parts[index] : parts.at(-1);
  const named = part !== undefined && isDynamic(part) && (index < parts.length || isCatchAll(part));
  return { field: named ? part.replace(/^\[(\.\.\.)?|\]$/g, "") : "path", segment: segments[index]! };
}
