// Whether an answer goes out over https. No dependency but the configuration (no database): the
// proxy (security headers) and Better Auth (the Secure session cookie) decide it the same way.

import { config } from "@/lib/config";

/**
 * Whether the request reached us over https: `X-Forwarded-Proto`, which Next sets for every
 * request (from the TLS socket, or kept from the proxy in front), else the request URL.
 */
export function servedOverHttps(headers: Headers, url?: string): boolean {
  const forwarded = headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase();
  if (forwarded) return forwarded === "https";
  return url?.startsWith("https:") ?? false;
}

/** The console's origin is https: BETTER_AUTH_URL (its public origin) says so, or this request came that way. */
export function consoleIsHttps(headers: Headers, url?: string): boolean {
  return /^https:/i.test(config().BETTER_AUTH_URL ?? "") || servedOverHttps(headers, url);
}
