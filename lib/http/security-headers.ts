// The security headers of every answer. Dependency-free: proxy.ts sets them on every response
// it sees (everything but Next's static assets), before any database or page code runs.

/**
 * Pages: scripts run only with this request's nonce ('strict-dynamic' lets Next's own loader add
 * its chunks); styles come from our own files or carry the nonce. `style-src-attr` allows inline
 * style attributes: React renders widths of table columns and progress bars that way, and an
 * attribute cannot run script. No plugins, no <base>, forms post only here, no framing.
 */
export function pagePolicy(nonce: string, options: { https: boolean; dev?: boolean }): string {
  const directives = [
    "default-src 'self'",
    // 'unsafe-eval' only under `next dev`: React rebuilds server error stacks with eval there.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${options.dev ? " 'unsafe-eval'" : ""}`,
    `style-src 'self' 'nonce-${nonce}'${options.dev ? " 'unsafe-inline'" : ""}`,
    "style-src-attr 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ];
  // Over plain http (a console on 127.0.0.1) upgrading would point every asset at an https
  // port nobody listens on.
  if (options.https) directives.push("upgrade-insecure-requests");
  return directives.join("; ");
}

/** API answers, exports and errors are data, never documents: they may load and frame nothing. */
export const API_POLICY = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Powerful features the console never uses, switched off for it and anything it might embed. */
const PERMISSIONS_POLICY = [
  "accelerometer=()",
  "camera=()",
  "display-capture=()",
  "geolocation=()",
  "gyroscope=()",
  "magnetometer=()",
  "microphone=()",
  "midi=()",
  "payment=()",
  "usb=()",
].join(", ");

/** HSTS for a year; not includeSubDomains: other hosts of the operator's domain are not ours to pin. */
export const HSTS = "max-age=31536000";

/** The headers every answer carries, besides its Content-Security-Policy. */
export function baseSecurityHeaders(options: { https: boolean }): Record<string, string> {
  return {
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    // Full URLs (record ids, filters) only to this origin; other sites get nothing.
    "referrer-policy": "same-origin",
    "permissions-policy": PERMISSIONS_POLICY,
    // A window this console opens, or that opens it, gets no handle on the other.
    "cross-origin-opener-policy": "same-origin",
    // Other sites cannot embed our answers as images or scripts to read them sideways.
    "cross-origin-resource-policy": "same-origin",
    ...(options.https ? { "strict-transport-security": HSTS } : {}),
  };
}

/** A fresh nonce: 128 random bits, base64 (CSP's nonce-source grammar). */
export function newNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes));
}
