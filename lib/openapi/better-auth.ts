import { changePassword, resetPassword, signInEmail } from "better-auth/api";
import { z } from "zod";
import { type Answer, type ApiOperation, json } from "./operation";

// Better Auth's endpoints that the console's people use (docs/api.md, docs/api-additions.md),
// all served by the catch-all app/api/auth/[...all]/route.ts. Their request bodies are Better
// Auth's own zod schemas: the endpoint's (change-password, reset-password), or for an endpoint
// it builds per auth instance (sign-in) those of one built the same way. The answers are as the
// console serves them: without the session token (lib/auth/hide-session-tokens.ts).

const ROUTE = "/api/auth/[...all]";

type Endpoint = { options?: { body?: unknown } };

/** Better Auth's body schema of an endpoint, or of an endpoint factory's product. */
function bodyOf(endpoint: Endpoint | (() => Endpoint)): z.ZodType {
  const built = "options" in endpoint && endpoint.options ? endpoint : (endpoint as () => Endpoint)();
  return built.options?.body as z.ZodType;
}

/** Better Auth's refusals: `{code, message}` (`INVALID_EMAIL_OR_PASSWORD`, `BANNED_USER`, ...). */
const authErrorSchema = z
  .looseObject({ code: z.string().optional(), message: z.string() })
  .meta({ id: "AuthError", description: "A refusal by Better Auth." });

const authError = (description: string): Answer => ({ description, content: json(authErrorSchema) });

const userSchema = z
  .looseObject({
    id: z.string(),
    email: z.string(),
    name: z.string(),
    role: z.enum(["owner", "support", "auditor", "admin"]),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: "AuthUser" });

const sessionSchema = z
  .looseObject({ id: z.string(), userId: z.string(), expiresAt: z.string(), createdAt: z.string() })
  .meta({ id: "AuthSession", description: "A session, without its token (the cookie carries it)." });

/** What every Better Auth endpoint may answer besides its own: its rate limit and its failures. */
const common: Record<number, Answer> = {
  429: authError("Too many requests from this address (sign-in: 5 a minute per address and a limit per email)."),
  500: authError("An unexpected failure."),
};
/** Better Auth's origin check on a request that changes something. */
const originCheck = authError("The request's `Origin` is not this site (`INVALID_ORIGIN`).");

export const BETTER_AUTH_OPERATIONS: ApiOperation[] = [
  {
    method: "POST",
    route: ROUTE,
    path: "/api/auth/sign-in/email",
    operationId: "signInEmail",
    summary: "Sign in with email and password",
    description: "Sets the HttpOnly session cookie; the answer carries no session token.",
    tag: "Sign-in",
    access: { kind: "public" },
    body: bodyOf(signInEmail),
    answers: {
      200: {
        description: "Signed in; the cookie is set.",
        content: json(z.looseObject({ redirect: z.boolean(), url: z.string().optional(), user: userSchema })),
      },
      400: authError("The body is not what the endpoint takes, or the email is not an email address."),
      401: authError("Wrong email or password (`INVALID_EMAIL_OR_PASSWORD`)."),
      403: authError("The person is disabled (`BANNED_USER`), or the `Origin` is not this site."),
      ...common,
    },
  },
  {
    method: "POST",
    route: ROUTE,
    path: "/api/auth/sign-in/social",
    operationId: "signInSocial",
    summary: "Start single sign-on (OpenID Connect)",
    description:
      "Served when `OIDC_ISSUER` is set (docs/decisions/0036-single-sign-on.md). Stores the request's state, PKCE verifier and nonce, and answers with the provider's authorization URL for the browser to go to; the provider sends it back to `/api/auth/callback/oidc`.",
    tag: "Sign-in",
    access: { kind: "public" },
    body: z.object({
      provider: z.literal("oidc"),
      callbackURL: z.string().optional().meta({ description: "A path of this site to land on once signed in." }),
      errorCallbackURL: z
        .string()
        .optional()
        .meta({ description: "A path of this site to land on when refused, with `?error=CODE`." }),
      disableRedirect: z.boolean().optional(),
    }),
    answers: {
      200: {
        description: "The provider's authorization URL.",
        content: json(z.looseObject({ url: z.string(), redirect: z.boolean() })),
      },
      400: authError(
        "The body is not what the endpoint takes, or the provider is not configured (`PROVIDER_NOT_FOUND`).",
      ),
      403: authError("A callback URL of another site, or the `Origin` is not this site."),
      ...common,
    },
  },
  {
    method: "GET",
    route: ROUTE,
    path: "/api/auth/callback/oidc",
    operationId: "callbackOidc",
    summary: "Single sign-on's return from the provider",
    description:
      "The provider's redirect with `code` and `state`. The state, PKCE and the ID token (signature, issuer, audience, nonce) are checked; the groups claim (`OIDC_GROUPS_CLAIM`) is mapped through `OIDC_GROUP_GRANTS` and replaces the person's `oidc` grants; the first sign-in creates the person. Redirects to the callback URL with the session cookie set, or to the error URL with `?error=NO_GRANTS` (no group maps to a grant), `BANNED_USER`, `state_mismatch` and the like.",
    tag: "Sign-in",
    access: { kind: "public" },
    query: z.object({
      code: z.string().optional(),
      state: z.string().optional(),
      iss: z.string().optional(),
      error: z.string().optional(),
      error_description: z.string().optional(),
    }),
    answers: {
      302: { description: "To the callback URL (signed in) or to the error URL with `?error=`." },
      ...common,
    },
  },
  {
    method: "POST",
    route: ROUTE,
    path: "/api/auth/sign-out",
    operationId: "signOut",
    summary: "Sign out",
    description: "Ends the session of the cookie sent, if any, and clears the cookie.",
    tag: "Sign-in",
    access: { kind: "public" },
    answers: {
      200: { description: "Signed out.", content: json(z.looseObject({ success: z.boolean() })) },
      403: originCheck,
      ...common,
    },
  },
  {
    method: "GET",
    route: ROUTE,
    path: "/api/auth/get-session",
    operationId: "getSession",
    summary: "The current session",
    description: "Reads the session cookie; null when there is none.",
    tag: "Sign-in",
    access: { kind: "public" },
    answers: {
      200: {
        description: "The session and its person, or null.",
        content: json(z.object({ session: sessionSchema, user: userSchema }).nullable()),
      },
      ...common,
    },
  },
  {
    method: "GET",
    route: ROUTE,
    path: "/api/auth/list-sessions",
    operationId: "listSessions",
    summary: "The person's open sessions",
    tag: "Sign-in",
    access: { kind: "session" },
    answers: {
      200: { description: "The sessions, without tokens.", content: json(z.array(sessionSchema)) },
      401: authError("No session."),
      ...common,
    },
  },
  {
    method: "POST",
    route: ROUTE,
    path: "/api/auth/change-password",
    operationId: "changePassword",
    summary: "Change one's password",
    tag: "Sign-in",
    access: { kind: "session" },
    body: bodyOf(changePassword),
    answers: {
      200: { description: "Changed.", content: json(z.looseObject({ user: userSchema })) },
      400: authError("The current password is wrong, or the new one is too short (12) or too long."),
      401: authError("No session."),
      403: originCheck,
      ...common,
    },
  },
  {
    method: "POST",
    route: ROUTE,
    path: "/api/auth/reset-password",
    operationId: "resetPassword",
    summary: "Set a password with a one-time link's token",
    description:
      "The token of an invitation or reset link (`/set-password?token=…`); it works once, for 48 hours, and ends the person's sessions.",
    tag: "Sign-in",
    access: { kind: "public" },
    body: bodyOf(resetPassword),
    answers: {
      200: { description: "The password is set.", content: json(z.object({ status: z.boolean() })) },
      400: authError("The token is unknown, used or expired (`INVALID_TOKEN`), or the password is too short."),
      403: originCheck,
      ...common,
    },
  },
];
