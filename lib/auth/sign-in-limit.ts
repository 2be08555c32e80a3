import { APIError, createAuthMiddleware, getIP, isAPIError } from "better-auth/api";
import { appendStandaloneDecision } from "@/lib/audit";
import { db } from "@/lib/db/client";
import { Prisma } from "@/lib/generated/prisma/client";
import { log } from "@/lib/log";

// The per-account login limit (docs/decisions/0006-authentication.md): failed sign-ins are
// counted per email address in PostgreSQL (`sign_in_failures`), so no header a client sends,
// and no number of client addresses, buys more guesses at one password. Better Auth's own
// limiter (per client address, `rate_limits`) runs first and counts every attempt while it runs;
// a success gives its place back (refundAddressAttempt), so that limit counts failures only and
// an office behind one address can sign in all at once.

/** At most `max` failed sign-ins per email address per window (seconds), then 429. */
export const SIGN_IN_ACCOUNT_LIMIT = { window: 15 * 60, max: 10 } as const;

const SIGN_IN_PATH = "/sign-in/email";
/** createUser's maximum: no longer address belongs to anyone, none is worth a row. */
const MAX_EMAIL_LENGTH = 320;
const ACTOR = "system:sign-in-limit";

const windowInterval = Prisma.sql`(${SIGN_IN_ACCOUNT_LIMIT.window}::int * interval '1 second')`;

/** The address as Better Auth looks it up (lower-cased only), or null when there is none. */
function emailOf(body: unknown): string | null {
  const email = (body as { email?: unknown } | null | undefined)?.email;
  return typeof email === "string" ? email.toLowerCase() : null;
}

/**
 * Counts this attempt against the address, in one statement (the row lock orders concurrent
 * attempts): a new window when the last one ended, else one more unless the limit is reached.
 * An attempt counts as a failure from its start until it succeeds (a success deletes the row),
 * so a burst of parallel guesses gets no more than `max` through. Returns null when refused.
 */
async function reserveAttempt(email: string): Promise<number | null> {
  const rows = await db().$queryRaw<{ failures: number }[]>`
    INSERT INTO "sign_in_failures" AS f ("email", "failures", "window_started_at")
    VALUES (${email}, 1, now())
    ON CONFLICT ("email") DO UPDATE SET
      "failures" = CASE WHEN f."window_started_at" > now() - ${windowInterval} THEN f."failures" + 1 ELSE 1 END,
      "window_started_at" = CASE WHEN f."window_started_at" > now() - ${windowInterval}
                                 THEN f."window_started_at" ELSE now() END,
      "locked_at" = CASE WHEN f."window_started_at" > now() - ${windowInterval} THEN f."locked_at" END
    WHERE f."failures" < ${SIGN_IN_ACCOUNT_LIMIT.max}::int OR f."window_started_at" <= now() - ${windowInterval}
    RETURNING "failures"`;
  return rows[0]?.failures ?? null;
}

/** Seconds until the address's current window ends, or null when it is not locked (any more). */
async function lockedFor(email: string): Promise<number | null> {
  const rows = await db().$queryRaw<{ seconds: number }[]>`
    SELECT greatest(1, ceil(extract(epoch FROM "window_started_at" + ${windowInterval} - now())))::int AS "seconds"
      FROM "sign_in_failures"
     WHERE "email" = ${email} AND "failures" >= ${SIGN_IN_ACCOUNT_LIMIT.max}::int
       AND "window_started_at" > now() - ${windowInterval}`;
  return rows[0]?.seconds ?? null;
}

/** Lets the attempt through (counted), or throws 429 with Retry-After while the address is locked. */
async function admit(email: string, clientIp: string | null): Promise<void> {
  // The row can change between the two statements (a success deletes it, a window ends): then
  // the attempt is simply counted again.
  for (let tries = 0; tries < 3; tries++) {
    if ((await reserveAttempt(email)) !== null) return;
    const seconds = await lockedFor(email);
    if (seconds === null) continue;
    log.warn({ email, clientIp, retryAfter: seconds }, "sign-in refused: too many failed sign-ins for this email");
    throw new APIError(
      "TOO_MANY_REQUESTS",
      {
        code: "TOO_MANY_FAILED_SIGN_INS",
        message: "Too many failed sign-ins for this email address. Try again later.",
      },
      // X-Retry-After as Better Auth's own limiter sends it; Retry-After is the standard one.
      { "Retry-After": String(seconds), "X-Retry-After": String(seconds) },
    );
  }
  throw new APIError("SERVICE_UNAVAILABLE", { message: "Signing in is busy. Try again in a moment." });
}

/**
 * Better Auth's rate-limit key for this path and client address (its createRateLimitKey; with no
 * address, its shared bucket `no-trusted-ip`). The tests read the same key.
 */
function addressKey(clientIp: string | null): string {
  return `${clientIp ?? "no-trusted-ip"}|${SIGN_IN_PATH}`;
}

/**
 * A success takes its own attempt back off the client address's count: the per-address limit
 * is for guesses, and a correct password is none. Attempts still count while they run, so a
 * burst of parallel guesses gets no more through than before.
 */
async function refundAddressAttempt(clientIp: string | null): Promise<void> {
  await db().$executeRaw`
    UPDATE "rate_limits" SET "count" = "count" - 1 WHERE "key" = ${addressKey(clientIp)} AND "count" > 0`;
}

/** A success clears the address's failures (no one else's), and rows of windows long over. */
async function clearFailures(email: string): Promise<void> {
  await db().$executeRaw`
    DELETE FROM "sign_in_failures" WHERE "email" = ${email} OR "window_started_at" <= now() - ${windowInterval}`;
}

/**
 * After a failure: logs it (pino only: a failed sign-in is no decision) and, when it was the one
 * that reached the limit, marks the row locked and writes `auth.sign-in-locked` to the decision
 * log, once per window (the conditional update lets only one request do it).
 */
async function recordFailure(email: string, clientIp: string | null, status: number | null): Promise<void> {
  const locked = await db().$queryRaw<{ failures: number; lockedUntil: Date }[]>`
    UPDATE "sign_in_failures" SET "locked_at" = now()
     WHERE "email" = ${email} AND "failures" >= ${SIGN_IN_ACCOUNT_LIMIT.max}::int AND "locked_at" IS NULL
       AND "window_started_at" > now() - ${windowInterval}
    RETURNING "failures", "window_started_at" + ${windowInterval} AS "lockedUntil"`;
  const lockout = locked[0];
  if (!lockout) {
    const rows = await db().$queryRaw<{ failures: number }[]>`
      SELECT "failures" FROM "sign_in_failures" WHERE "email" = ${email}`;
    log.warn({ email, clientIp, status, failures: rows[0]?.failures ?? null }, "sign-in failed");
    return;
  }
  const lockedUntil = lockout.lockedUntil.toISOString();
  log.warn(
    { email, clientIp, status, failures: lockout.failures, lockedUntil },
    "sign-in failed: the email is locked until its window ends",
  );
  const person = await db().user.findUnique({ where: { email }, select: { id: true } });
  await appendStandaloneDecision({
    actor: ACTOR,
    action: "auth.sign-in-locked",
    reason: `${lockout.failures} failed sign-ins within ${SIGN_IN_ACCOUNT_LIMIT.window / 60} minutes: refused until ${lockedUntil}`,
    details: {
      email,
      // Null for an address that belongs to no one: it is locked the same way (no telling apart).
      userId: person?.id ?? null,
      failures: lockout.failures,
      windowSeconds: SIGN_IN_ACCOUNT_LIMIT.window,
      lockedUntil,
      // As Better Auth resolved it for its own limit; from a direct client it is not proof.
      clientIp,
    },
  });
}

function clientIpOf(ctx: { request?: Request; headers?: Headers; context: { options: Parameters<typeof getIP>[1] } }) {
  const source = ctx.request ?? ctx.headers;
  return source ? getIP(source, ctx.context.options) : null;
}

/** Better Auth `hooks.before`: counts the attempt, or refuses it while the address is locked. */
export const signInLimitBefore = createAuthMiddleware(async (ctx) => {
  if (ctx.path !== SIGN_IN_PATH) return;
  const email = emailOf(ctx.body);
  // Not a string: Better Auth refuses the body (400) without looking anyone up.
  if (email === null) return;
  if (email.length > MAX_EMAIL_LENGTH) {
    throw new APIError("BAD_REQUEST", { code: "INVALID_EMAIL", message: "Invalid email" });
  }
  await admit(email, clientIpOf(ctx));
});

/**
 * Better Auth `hooks.after`: a session clears the email's failures and gives the client address
 * its attempt back; anything else is a failure of both.
 */
export const signInLimitAfter = createAuthMiddleware(async (ctx) => {
  if (ctx.path !== SIGN_IN_PATH) return;
  const email = emailOf(ctx.body);
  if (email === null || email.length > MAX_EMAIL_LENGTH) return;
  const returned: unknown = ctx.context.returned;
  const failed = isAPIError(returned) || returned instanceof Error || returned == null;
  try {
    if (!failed) {
      await clearFailures(email);
      await refundAddressAttempt(clientIpOf(ctx));
    } else await recordFailure(email, clientIpOf(ctx), isAPIError(returned) ? returned.statusCode : null);
  } catch (err) {
    // The answer (a session, or a 401) stands; the count was already taken before the attempt.
    log.error({ err, email }, "sign-in limit: could not record the outcome");
  }
});
