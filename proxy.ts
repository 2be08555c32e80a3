import { type NextRequest, NextResponse } from "next/server";
// Past lib/auth's face on purpose: the proxy loads only the pure path rule, not Better Auth.
// eslint-disable-next-line no-restricted-imports
import { loginPath } from "@/lib/auth/next-path";
import { consoleIsHttps } from "@/lib/config/https";
import { undecodablePath } from "@/lib/http/route-match";
import { API_POLICY, baseSecurityHeaders, newNonce, pagePolicy } from "@/lib/http/security-headers";

// Runs for every request but Next's static assets (see `config`): it gives each answer its
// security headers (a page a fresh CSP nonce, which Next puts on its own scripts), refuses
// paths Next could not decode, and redirects signed-out visits to console pages.

// A signed-out visit to a console page gets a real redirect to /login before anything renders:
// pages stream (loading.tsx), so by the time their own requireUser() runs a 200 is on its way.
// Only the cookie's presence is checked here (the name follows COOKIE_PREFIX in
// lib/auth/better-auth.ts, not imported to keep the database out of the proxy); pages validate it.
const SESSION_COOKIE = /(^|;\s*)(__Secure-)?review-console\.session_token=/;
const CONSOLE_PAGES = /^\/(reviews|audit|operations)(\/|$)/;

export function proxy(request: NextRequest) {
  const { pathname, search } = request.nextUrl;
  const isApi = pathname === "/api" || pathname.startsWith("/api/");
  const https = consoleIsHttps(request.headers, request.url);
  const nonce = isApi ? null : newNonce();
  const policy = nonce ? pagePolicy(nonce, { https, dev: process.env.NODE_ENV === "development" }) : API_POLICY;

  let response: NextResponse;
  const undecodable = undecodablePath(pathname);
  if (undecodable) {
    response = badPath(undecodable.field, isApi);
  } else if (CONSOLE_PAGES.test(pathname) && !SESSION_COOKIE.test(request.headers.get("cookie") ?? "")) {
    response = NextResponse.redirect(new URL(loginPath(`${pathname}${search}`), request.url));
  } else if (nonce) {
    // Next reads the nonce from the request's CSP header while it renders the page.
    const headers = new Headers(request.headers);
    headers.set("x-nonce", nonce);
    headers.set("content-security-policy", policy);
    response = NextResponse.next({ request: { headers } });
  } else {
    response = NextResponse.next();
  }
  response.headers.set("content-security-policy", policy);
  for (const [name, value] of Object.entries(baseSecurityHeaders({ https }))) response.headers.set(name, value);
  return response;
}

/** 400 naming the path parameter that does not decode (the API's error shape for API paths). */
function badPath(field: string, isApi: boolean): NextResponse {
  const problem = "is not valid percent-encoded UTF-8";
  if (!isApi) {
    return new NextResponse(`Bad request: ${field} ${problem}\n`, {
      status: 400,
      headers: { "content-type": "text/plain; charset=utf-8" },
    });
  }
  return NextResponse.json(
    {
      error: { code: "invalid-request", message: `${field}: ${problem}`, issues: [{ path: field, message: problem }] },
    },
    { status: 400 },
  );
}

export const config = {
  // Everything but the build's static files (content-hashed JS, CSS and fonts, served as they are).
  matcher: ["/((?!_next/static/|_next/image).*)"],
};
