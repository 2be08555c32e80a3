-- The per-account login limit (lib/auth/sign-in-limit.ts, docs/decisions/0006-authentication.md):
-- failed sign-ins per email address, so that no X-Forwarded-For value and no number of client
-- addresses buys more guesses at one password. One row per address while it has failures in
-- its window (15 minutes from the first); a successful sign-in deletes the address's row and
-- rows of windows long over. Better Auth's `rate_limits` is not reused: its limiter deletes rows
-- idle longer than its own longest window (1 minute).
CREATE TABLE "sign_in_failures" (
    -- Lower-cased, as Better Auth looks people up; need not belong to anyone.
    "email" TEXT NOT NULL,
    -- Attempts in the window that did not sign in (an attempt counts from its start).
    "failures" INTEGER NOT NULL,
    "window_started_at" TIMESTAMPTZ(3) NOT NULL,
    -- When `failures` reached the limit and `auth.sign-in-locked` was written; null otherwise.
    "locked_at" TIMESTAMPTZ(3),
    CONSTRAINT "sign_in_failures_pkey" PRIMARY KEY ("email")
);
CREATE INDEX "sign_in_failures_window_started_at_idx" ON "sign_in_failures"("window_started_at");
