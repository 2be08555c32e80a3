import type { BetterAuthPlugin } from "better-auth";
import { createAuthMiddleware, isAPIError } from "better-auth/api";

// The session token is the bearer secret behind the HttpOnly cookie: whoever holds it is signed
// in. Better Auth also puts it in some JSON answers (for clients that keep it themselves, e.g.
// its bearer plugin); the console never needs it there, and a script that could read it (an XSS)
// could then carry the session off the browser. So it is taken out of every answer that has it.

/** The endpoints whose answer carries a session token (Better Auth 1.7). */
const ANSWERS_WITH_TOKENS = new Set([
  "/get-session",
  "/list-sessions",
  "/sign-in/email",
  "/sign-up/email",
  "/change-password",
  "/update-session",
]);

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function withoutToken(value: Json): Json {
  if (!("token" in value)) return value;
  const rest = { ...value };
  delete rest.token;
  return rest;
}

/**
 * The answer without session tokens: a top-level `token` (sign-in, change-password), the
 * `session.token` of get-session, and the `token` of each session in a list. Anything else is
 * returned as it is (the same object when nothing was taken out).
 */
export function withoutSessionTokens(answer: unknown): unknown {
  if (Array.isArray(answer)) {
    return answer.some((item) => isObject(item) && "token" in item)
      ? answer.map((item) => (isObject(item) ? withoutToken(item) : item))
      : answer;
  }
  if (!isObject(answer)) return answer;
  let out = withoutToken(answer);
  if (isObject(out.session) && "token" in out.session) out = { ...out, session: withoutToken(out.session) };
  return out;
}

/**
 * A Better Auth plugin with one after-hook: it rewrites the answers of ANSWERS_WITH_TOKENS. It
 * runs for HTTP requests and `auth.api` calls alike; the console's server code reads the user,
 * never the token. Cookies the endpoint set are kept (they travel apart from the body).
 */
export function hideSessionTokens() {
  return {
    id: "hide-session-tokens",
    hooks: {
      after: [
        {
          matcher: (context) => ANSWERS_WITH_TOKENS.has(context.path ?? ""),
          handler: createAuthMiddleware(async (ctx) => {
            const returned: unknown = ctx.context.returned;
            if (returned == null || returned instanceof Response || isAPIError(returned)) return;
            const cleaned = withoutSessionTokens(returned);
            // An array (list-sessions) is JSON too; the type only names objects.
            if (cleaned !== returned) return ctx.json(cleaned as Record<string, unknown>);
          }),
        },
      ],
    },
  } satisfies BetterAuthPlugin;
}
