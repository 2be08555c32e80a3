import { type NextRequest, NextResponse } from "next/server";
import { loginPath } from "@/lib/auth/next-path";

// A signed-out visit to a console page gets a real redirect to /login before anything renders:
// pages stream (loading.tsx), so by the time their own requireUser() runs a 200 is on its way.
// Only the cookie's presence is checked here (the name follows COOKIE_PREFIX in
// lib/auth/better-auth.ts, not imported to keep the database out of the proxy); pages validate it.
const SESSION_COOKIE = /(^|;\s*)(__Secure-)?review-console\.session_token=/;

export function proxy(request: NextRequest) {
  if (SESSION_COOKIE.test(request.headers.get("cookie") ?? "")) return NextResponse.next();
  const { pathname, search } = request.nextUrl;
  return NextResponse.redirect(new URL(loginPath(`${pathname}${search}`), request.url));
}

export const config = {
  matcher: ["/reviews", "/reviews/:path*", "/audit", "/audit/:path*", "/operations", "/operations/:path*"],
};
