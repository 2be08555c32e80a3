import { betterAuth, type BetterAuthOptions, type DBAdapter } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { isAPIError } from "better-auth/api";
import { db } from "@/lib/db/client";
import { grantsOfUser } from "@/lib/access";
import type { Prisma, PrismaClient } from "@/lib/generated/prisma/client";
import { servedOverHttps } from "@/lib/config/https";
import { log } from "@/lib/log";
import { PEER_ADDRESS_HEADER, peerHeaderTrusted } from "@/lib/net/peer-address";
import { adminPlugin, adminPluginPaths } from "./admin-plugin";
import { oidcDatabaseHooks, oidcPlugin, oidcValidateUserInfo } from "./oidc";
import { config } from "@/lib/config";
import { oidcSettings } from "./oidc-settings";
import { hideSessionTokens } from "./hide-session-tokens";
import { deliverPasswordLink, PASSWORD_LINK_SECONDS, recordPasswordSet } from "./password-links";
import { hashPassword, verifyPassword } from "./passwords";
import { isPersonRole, PERSON_ROLES } from "@/lib/access/client";
import { authSecret } from "./secret";
import type { SessionUser } from "./session";
import { signInLimitAfter, signInLimitBefore } from "./sign-in-limit";
import { UTC } from "@/lib/time-zone";

// Sign-in for people: Better Auth, configured once here (docs/decisions/0006-authentication.md).
// Its endpoints are served under /api/auth/* by app/api/auth/[...all]/route.ts.

export const AUTH_BASE_PATH = "/api/auth";
/**
 * The login rule per client address: this many failed attempts per window (seconds), then 429
 * (an attempt counts while it runs; a success gives its place back: ./sign-in-limit.ts). Without
 * TRUSTED_PROXIES every direct client shares one address (see clientAddressOptions). The rule
 * per email address is SIGN_IN_ACCOUNT_LIMIT in ./sign-in-limit.ts.
 */
export const SIGN_IN_RATE_LIMIT = { window: 60, max: 5 } as const;
/** A session lasts this long from sign-in, used or not (no sliding refresh). */
export const SESSION_SECONDS = 12 * 60 * 60;
/** Cookies are `review-console.session_token` (or `__Secure-review-console...` over https). */
export const COOKIE_PREFIX = "review-console";

const adapterConfig = { provider: "postgresql", transaction: true } as const;

/**
 * What Better Auth must know to map its models onto our tables: the `role` field, ids made by
 * the database (UUID), and the rate-limit table. Shared by the instance and createUser's adapter.
 */
const modelOptions = {
  user: {
    additionalFields: {
      // Set by `review-console user add` only: input false keeps it out of every endpoint.
      role: { type: [...PERSON_ROLES], required: true, input: false },
      // The zone the person reads times in (ADR 0043): written by PUT /api/v1/me/preferences only.
      timeZone: { type: "string", required: false, defaultValue: "UTC", input: false },
    },
  },
  advanced: { database: { generateId: "uuid" } },
  rateLimit: { storage: "database" },
} satisfies Partial<BetterAuthOptions>;

function trustedProxies(): string[] | undefined {
  const list = config().TRUSTED_PROXIES;
  return list.length ? [...list] : undefined;
}

/**
 * Where Better Auth finds the client address (its IP rate limit, sessions.ip_address). Next hands
 * route handlers no socket address: it only sets X-Forwarded-For from the socket when the client
 * sent none, so a client reaching the console directly chooses its own. That header is therefore
 * read only when TRUSTED_PROXIES says a proxy is in front (it then walks the chain from the right,
 * past those proxies). Otherwise, under the console's own server (`npm start`,
 * lib/server/console-server.ts), the socket's address it sets on every request is the client's.
 * Under a plain `next start` there is no client address, and Better Auth counts all sign-ins in
 * one shared bucket per path. The per-email limit does not depend on any of this.
 */
function clientAddressOptions(proxies: string[] | undefined): NonNullable<BetterAuthOptions["advanced"]>["ipAddress"] {
  if (proxies) return { ipAddressHeaders: ["x-forwarded-for"], trustedProxies: proxies };
  return { ipAddressHeaders: peerHeaderTrusted() ? [PEER_ADDRESS_HEADER] : [] };
}

/** Better Auth's messages, into our structured log. */
function logBetterAuth(level: "debug" | "info" | "warn" | "error", message: string, ...args: unknown[]): void {
  // Deriving the origin from each request is our choice when BETTER_AUTH_URL is unset (see
  // auth()), not a mistake to warn about at every start. So is one shared IP bucket without
  // TRUSTED_PROXIES (clientAddressOptions): said once per process, as information.
  let chosen = level;
  if (message.includes("Base URL is not set")) chosen = "debug";
  else if (!trustedProxies() && message.includes("could not determine a client IP")) chosen = "info";
  const err = args.find((a) => a instanceof Error);
  const rest = args.filter((a) => a !== err);
  log[chosen]({ ...(err ? { err } : {}), ...(rest.length ? { args: rest } : {}) }, `better-auth: ${message}`);
}

/**
 * Errors thrown to Better Auth's router (its origin check's 403, our 429 from ./sign-in-limit.ts,
 * failures), into our structured log: by default it prints them with its own console logger, at
 * ERROR, whatever `logger` says. A refusal (4xx) is info; the caller still gets its answer.
 */
function logAuthError(error: unknown): void {
  if (isAPIError(error) && error.statusCode < 500) {
    log.info({ status: error.statusCode, code: error.body?.code }, `better-auth: ${error.message}`);
  } else {
    log.error({ err: error }, "better-auth: request failed");
  }
}

function createAuth(client: PrismaClient, secureCookies: boolean | undefined) {
  const proxies = trustedProxies();
  // Single sign-on when OIDC_ISSUER is set (./oidc.ts); its settings are checked at start
  // (lib/server/config-check.ts).
  const sso = oidcSettings();
  const passwordSignIn = config().PASSWORD_SIGN_IN;
  return betterAuth({
    appName: "Review Console",
    basePath: AUTH_BASE_PATH,
    // BETTER_AUTH_URL, when set, fixes the site's origin; otherwise it is each request's own
    // (requestOrigin). The secret signs the session cookie.
    secret: authSecret(),
    // Better Auth checks `Origin` on cookie requests against these (plus BETTER_AUTH_URL).
    trustedOrigins: (request?: Request) => (request ? [requestOrigin(request.headers, request.url)] : []),
    database: prismaAdapter(client, adapterConfig),
    user: sso ? { ...modelOptions.user, validateUserInfo: oidcValidateUserInfo(sso) } : modelOptions.user,
    ...(sso ? { databaseHooks: oidcDatabaseHooks() } : {}),
    emailAndPassword: {
      enabled: true,
      // People are created by `review-console user add` and the demo seed, never by themselves
      // (single sign-on creates them at their first sign-in: ./oidc.ts).
      disableSignUp: true,
      minPasswordLength: 12,
      maxPasswordLength: 1024,
      // Argon2id (memory-hard) instead of Better Auth's default scrypt: lib/auth/passwords.ts.
      password: { hash: hashPassword, verify: ({ hash, password }) => verifyPassword(hash, password) },
      // One-time links to set a password (invitations, resets; ./password-links.ts). Spending
      // one ends the person's sessions.
      sendResetPassword: deliverPasswordLink,
      onPasswordReset: recordPasswordSet,
      resetPasswordTokenExpiresIn: PASSWORD_LINK_SECONDS,
      revokeSessionsOnPasswordReset: true,
    },
    // A link's token is stored as its SHA-256: a reader of the database cannot use it.
    verification: { storeIdentifier: "hashed" },
    session: { expiresIn: SESSION_SECONDS, disableSessionRefresh: true },
    // The admin plugin for its ban (a disabled person cannot sign in) and the session-token
    // filter (docs/decisions/0011-people-and-tokens.md).
    plugins: [adminPlugin(), hideSessionTokens(), ...(sso ? [oidcPlugin(sso)] : [])],
    // Not over HTTP: the admin plugin's endpoints (lib/users/* make those changes, with a reason
    // and a decision-log entry) and the request for a password link, which only an admin makes
    // (server-side, issuePasswordLink). auth.api calls are not affected.
    // With PASSWORD_SIGN_IN=off, the password sign-in is not served either (404).
    disabledPaths: [...adminPluginPaths(), "/request-password-reset", ...(passwordSignIn ? [] : ["/sign-in/email"])],
    rateLimit: {
      // Better Auth turns it on only when NODE_ENV=production; we want it everywhere.
      enabled: true,
      storage: "database",
      window: 60,
      max: 100,
      customRules: {
        "/sign-in/email": { ...SIGN_IN_RATE_LIMIT },
        // Starting single sign-on guesses no password (it stores a state and names the provider's
        // URL): not Better Auth's default 3 per 10 s for /sign-in/*, which people behind one
        // address (a proxy without TRUSTED_PROXIES, an office) would use up at once.
        "/sign-in/social": { window: 60, max: 60 },
      },
    },
    advanced: {
      ...modelOptions.advanced,
      cookiePrefix: COOKIE_PREFIX,
      useSecureCookies: secureCookies,
      // Better Auth skips both when NODE_ENV=test; the tests must see what production does.
      disableOriginCheck: false,
      disableCSRFCheck: false,
      ipAddress: clientAddressOptions(proxies),
    },
    // The per-email limit on /sign-in/email (./sign-in-limit.ts). Hooks rather than a wrapper
    // around the route handler: Better Auth has parsed the body (JSON or form) by then, its IP
    // limit and origin check have run, and `returned` says how the attempt ended.
    hooks: { before: signInLimitBefore, after: signInLimitAfter },
    telemetry: { enabled: false },
    logger: { level: "warn", log: logBetterAuth },
    onAPIError: { onError: logAuthError },
  });
}

export type Auth = ReturnType<typeof createAuth>;

const globalForAuth = globalThis as unknown as {
  reviewConsoleAuth?: { client: PrismaClient; instances: Map<string, Auth> };
};

/**
 * The Better Auth instance, created on first use (`next build` imports route modules with no
 * database) and again whenever the database client was replaced (tests close it between files).
 *
 * Session cookies are Secure when the console is served over https. Unless BETTER_AUTH_URL fixes
 * the scheme, that is decided per request, so there are up to two instances: one whose cookies
 * are Secure (`__Secure-` prefix), one for plain http (a local `npm start`).
 */
export function auth(secure = false): Auth {
  const client = db();
  let cache = globalForAuth.reviewConsoleAuth;
  if (!cache || cache.client !== client) {
    cache = { client, instances: new Map() };
    globalForAuth.reviewConsoleAuth = cache;
  }
  const scheme = config().BETTER_AUTH_URL ? "configured" : secure ? "https" : "http";
  // TRUSTED_PROXIES is read when an instance is made: a changed value makes another one.
  const key = `${scheme}|${config().TRUSTED_PROXIES.join(",")}`;
  let instance = cache.instances.get(key);
  if (!instance) {
    instance = createAuth(client, scheme === "configured" ? undefined : secure);
    cache.instances.set(key, instance);
  }
  return instance;
}

/**
 * This site's origin as the browser addressed it: the scheme, and the host from X-Forwarded-Host
 * (which Next sets from Host unless a proxy did) or Host. Falls back to the request URL's origin,
 * which Next builds from the address it listens on (`http://localhost:3000` for `-H 127.0.0.1`),
 * not from what the browser used. A page of another site cannot set these headers on a
 * request it makes the browser send (that needs a CORS preflight, which we never grant).
 */
export function requestOrigin(headers: Headers, url: string): string {
  const host = headers.get("x-forwarded-host")?.split(",")[0]?.trim() || headers.get("host");
  if (host) {
    try {
      return new URL(`${servedOverHttps(headers, url) ? "https" : "http"}://${host}`).origin;
    } catch {
      // not a host name: fall back to the URL
    }
  }
  return new URL(url).origin;
}

/** The instance that serves this request (see auth()). */
export function authFor(request: Request): Auth {
  return auth(servedOverHttps(request.headers, request.url));
}

/** True when the request carries something that looks like our session cookie. */
export function hasSessionCookie(headers: Headers): boolean {
  return headers.get("cookie")?.includes(`${COOKIE_PREFIX}.session_token=`) ?? false;
}

/** The person whose valid session cookie these request headers carry, or null. */
export async function sessionUser(headers: Headers, url?: string): Promise<SessionUser | null> {
  // Most API calls come from programs with tokens: no cookie, no session lookup.
  if (!hasSessionCookie(headers)) return null;
  const session = await auth(servedOverHttps(headers, url)).api.getSession({ headers });
  // A disabled person's sessions are deleted with the change; `banned` also covers a session
  // that a sign-in racing the change created just after.
  if (!session || session.user.banned || !isPersonRole(session.user.role)) return null;
  return {
    id: session.user.id,
    email: session.user.email,
    role: session.user.role,
    timeZone: session.user.timeZone ?? UTC,
    grants: await grantsOfUser(session.user.id),
  };
}

/**
 * Better Auth's own database adapter over a Prisma transaction: writes through it get Better
 * Auth's field mapping and defaults, and commit or roll back with the caller's other writes
 * (createUser adds the person and the decision-log entry in one transaction).
 */
export function authAdapterFor(tx: Prisma.TransactionClient): DBAdapter {
  return prismaAdapter(tx, { ...adapterConfig, transaction: false })(modelOptions as BetterAuthOptions);
}
