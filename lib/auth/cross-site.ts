import { forbidden } from "@/lib/domain/refusal";
import type { Actor } from "@/lib/access";
import { config } from "@/lib/config";
import { requestOrigin } from "./better-auth";

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
  const configured = config().BETTER_AUTH_URL;
  // Checked at start (lib/config): an http(s) URL.
  if (configured) origins.add(new URL(configured).origin);
  return origins;
}
