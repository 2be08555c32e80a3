// The routes of app/ (pages and route handlers), for the two places that must know which route
// a raw path is before Next has routed it: the proxy, which names the parameter of a path Next
// cannot decode, and refusals, which are grouped by route (lib/audit/refusal-log.ts).
// lib/http/app-routes.test.ts keeps the list equal to the files.

export const APP_ROUTES = [
  "/",
  "/admin",
  "/admin/webhooks",
  "/api-reference",
  "/approvals",
  "/api/auth/[...all]",
  "/api/health",
  "/api/metrics",
  "/api/openapi.json",
  "/api/v1/approval-policies",
  "/api/v1/approval-policies/remove",
  "/api/v1/approvals",
  "/api/v1/approvals/[approvalId]/approve",
  "/api/v1/approvals/[approvalId]/reject",
  "/api/v1/approvals/[approvalId]/withdraw",
  "/api/v1/assignees",
  "/api/v1/audit",
  "/api/v1/audit/export",
  "/api/v1/audit/verification",
  "/api/v1/domains",
  "/api/v1/domains/[name]",
  "/api/v1/operations",
  "/api/v1/operations/[operationId]",
  "/api/v1/operations/[operationId]/abort",
  "/api/v1/operations/[operationId]/confirm",
  "/api/v1/operations/[operationId]/dry-run",
  "/api/v1/operations/[operationId]/items",
  "/api/v1/operations/[operationId]/log",
  "/api/v1/operations/[operationId]/pause",
  "/api/v1/operations/[operationId]/resume",
  "/api/v1/operations/auto-replay",
  "/api/v1/operations/auto-replay/[kind]",
  "/api/v1/me/preferences",
  "/api/v1/overview",
  "/api/v1/people",
  "/api/v1/people/[userId]/disable",
  "/api/v1/people/[userId]/enable",
  "/api/v1/people/[userId]/grants",
  "/api/v1/people/[userId]/password-link",
  "/api/v1/people/[userId]/role",
  "/api/v1/replays/[replayId]/outcome",
  "/api/v1/replays/claim",
  "/api/v1/replays/renew",
  "/api/v1/reviews",
  "/api/v1/reviews/[id]",
  "/api/v1/reviews/[id]/actions",
  "/api/v1/reviews/[id]/verdict",
  "/api/v1/reviews/batch",
  "/api/v1/reviews/count",
  "/api/v1/reviews/groups",
  "/api/v1/reviews/stats",
  "/api/v1/tokens",
  "/api/v1/tokens/[tokenId]/revoke",
  "/api/v1/views",
  "/api/v1/views/[viewId]",
  "/api/v1/webhooks",
  "/api/v1/webhooks/[webhookId]",
  "/api/v1/webhooks/[webhookId]/deliveries",
  "/api/v1/webhooks/[webhookId]/deliveries/[deliveryId]/redeliver",
  "/api/v1/webhooks/[webhookId]/disable",
  "/api/v1/webhooks/[webhookId]/enable",
  "/api/v1/webhooks/[webhookId]/remove",
  "/api/v1/webhooks/[webhookId]/test",
  "/audit",
  "/login",
  "/operations",
  "/operations/[id]",
  "/operations/new",
  "/overview",
  "/reviews",
  "/reviews/[id]",
  "/set-password",
] as const;

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
