import { createAuthClient } from "better-auth/client";

// The browser side of Better Auth: sign in and sign out through /api/auth/*, same origin, with
// the HttpOnly session cookie (scripts never see it). Made on first use, in the browser only.

let client: ReturnType<typeof createAuthClient> | undefined;

export function authClient(): ReturnType<typeof createAuthClient> {
  client ??= createAuthClient({ baseURL: window.location.origin, basePath: "/api/auth" });
  return client;
}
