import { z } from "zod";
import { networkListEntries, networkListProblem } from "./networks";

// Every environment variable the console and the CLI read: one zod schema each, with its
// default and a one-line description. README.md's configuration table lists the same variables
// (lib/config/readme.test.ts holds the two together). A blank value counts as unset: compose
// files pass `${NAME:-}` through as an empty string.

/** One variable: its schema (from the raw value, undefined when unset or blank), its default as documented, and what it is for. */
export interface Variable<T> {
  schema: z.ZodType<T, string | undefined>;
  /** The default as README.md's table shows it; absent when unset means "none" or is described there in words. */
  default?: string;
  description: string;
}

function variable<T>(schema: z.ZodType<T, string | undefined>, description: string, fallback?: string): Variable<T> {
  return { schema, description, ...(fallback === undefined ? {} : { default: fallback }) };
}

const got = (raw: string) => `got ${JSON.stringify(raw)}`;

/** A whole number in [min, max]; `expected` says so in the message. */
function wholeNumber(fallback: number, expected = "a positive integer", min = 1, max = Number.MAX_SAFE_INTEGER) {
  return z
    .string()
    .optional()
    .transform((raw, ctx): number => {
      if (raw === undefined) return fallback;
      const text = raw.trim();
      const value = Number(text);
      if (!/^\d+$/.test(text) || value < min || value > max) {
        ctx.addIssue({ code: "custom", message: `expected ${expected}, ${got(raw)}` });
        return z.NEVER;
      }
      return value;
    });
}

/** `on` or `off` (any case) as a boolean; unset is `fallback`. */
function onOff(fallback: boolean) {
  return z
    .string()
    .optional()
    .transform((raw, ctx): boolean => {
      if (raw === undefined) return fallback;
      const text = raw.trim().toLowerCase();
      if (text === "on") return true;
      if (text === "off") return false;
      ctx.addIssue({ code: "custom", message: `expected on or off, ${got(raw)}` });
      return z.NEVER;
    });
}

/** A URL whose scheme is one of `protocols` (with the colon); kept as written. */
function url(protocols: string[], expected: string) {
  return z
    .string()
    .optional()
    .superRefine((raw, ctx) => {
      if (raw === undefined) return;
      let parsed: URL | null = null;
      try {
        parsed = new URL(raw.trim());
      } catch {
        // reported below
      }
      if (!parsed || !protocols.includes(parsed.protocol)) {
        ctx.addIssue({ code: "custom", message: `expected ${expected}, ${got(raw)}` });
      }
    })
    .transform((raw) => raw?.trim());
}

const postgresUrl = () => url(["postgres:", "postgresql:"], "a postgres:// or postgresql:// URL");

/** Any text; unset is undefined. */
const text = () => z.string().optional();

/** Comma-separated addresses and CIDR ranges, as a list of entries (empty when unset). */
function networkList() {
  return z
    .string()
    .optional()
    .transform((raw, ctx): readonly string[] => {
      if (raw === undefined) return Object.freeze([]);
      const problem = networkListProblem(raw);
      if (problem) {
        ctx.addIssue({ code: "custom", message: problem });
        return z.NEVER;
      }
      return Object.freeze(networkListEntries(raw));
    });
}

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const VARIABLES = {
  // The database
  DATABASE_URL: variable(
    postgresUrl(),
    "the runtime role's connection; unset, the embedded PostgreSQL under .data/pg (read per call: see ADR 0042)",
  ),
  MIGRATION_DATABASE_URL: variable(postgresUrl(), "the tables' owner's connection, for migrations and `db roles`"),
  TEST_PG_SERVER_URL: variable(postgresUrl(), "the PostgreSQL server tests create their databases on"),
  DB_POOL_SIZE: variable(wholeNumber(10), "connections per process", "10"),

  // The server
  PORT: variable(wholeNumber(3000, "a port (1-65535)", 1, 65535), "the port the console listens on", "3000"),
  HOST: variable(
    z
      .string()
      .optional()
      .transform((raw) => raw?.trim() ?? "127.0.0.1"),
    "the address the console listens on",
    "127.0.0.1",
  ),
  REVIEW_CONSOLE_DATA_DIR: variable(
    text(),
    "local state: the embedded database, demo credentials, the session key",
    ".data",
  ),
  MAX_BODY_BYTES: variable(wholeNumber(1024 * 1024), "request body limit in bytes (413 beyond)", "1048576"),
  LOG_LEVEL: variable(
    z
      .string()
      .optional()
      .transform((raw, ctx): LogLevel | undefined => {
        if (raw === undefined) return undefined;
        const level = raw.trim().toLowerCase();
        if ((LOG_LEVELS as readonly string[]).includes(level)) return level as LogLevel;
        ctx.addIssue({ code: "custom", message: `expected one of ${LOG_LEVELS.join(", ")}, ${got(raw)}` });
        return z.NEVER;
      }),
    "pino log level (silent under tests when unset)",
    "info",
  ),
  INTAKE_FAST_PATH: variable(onOff(true), "off sends bearer-token intake through Next's route", "on"),

  // Sign-in
  BETTER_AUTH_SECRET: variable(
    text(),
    "the key session cookies are signed with; unset, a key made once in the data dir",
  ),
  BETTER_AUTH_URL: variable(url(["http:", "https:"], "an http(s) URL"), "the console's public origin"),
  TRUSTED_PROXIES: variable(networkList(), "addresses or CIDR ranges of the proxies in front (X-Forwarded-For)"),
  OIDC_ISSUER: variable(text(), "the OpenID Connect issuer; unset, no single sign-on"),
  OIDC_CLIENT_ID: variable(text(), "the console's client id at the provider"),
  OIDC_CLIENT_SECRET: variable(text(), "its client secret"),
  OIDC_PROVIDER_NAME: variable(text(), "the login button's label", "single sign-on"),
  OIDC_SCOPES: variable(text(), "scopes asked besides openid", "email profile"),
  OIDC_GROUPS_CLAIM: variable(text(), "the claim holding the person's groups", "groups"),
  OIDC_GROUP_GRANTS: variable(text(), "groups to grants: group=role[@domain], comma-separated"),
  PASSWORD_SIGN_IN: variable(onOff(true), "off: single sign-on only (needs OIDC_ISSUER)", "on"),

  // Background work in the console process
  OPERATIONS_DISPATCHER: variable(onOff(true), "off: this process does not dispatch bulk operations", "on"),
  OPERATIONS_TICK_MS: variable(wholeNumber(200), "the longest the dispatcher sleeps between rounds", "200"),
  WEBHOOKS: variable(onOff(true), "off: this process does not run the webhook notifier", "on"),
  WEBHOOK_TIMEOUT_MS: variable(wholeNumber(5000), "the timeout of one delivery attempt", "5000"),
  WEBHOOK_MAX_ATTEMPTS: variable(wholeNumber(8), "attempts before a delivery is failed", "8"),
  WEBHOOK_CONCURRENCY: variable(wholeNumber(4), "deliveries one process sends at once", "4"),
  WEBHOOK_THRESHOLD_CHECK_MS: variable(wholeNumber(30_000), "how often endpoint thresholds are checked", "30000"),
  WEBHOOK_ALLOWED_NETWORKS: variable(networkList(), "internal addresses or CIDR ranges webhooks may go to anyway"),

  // Retention and the archive (the CLI)
  // Unset: finished records are kept live for a year.
  RETENTION_FINISHED_MONTHS: variable(
    wholeNumber(12, "a whole number of months, at least 1"),
    "months finished records and the decision log stay live",
    "12",
  ),
  ARCHIVE_DIR: variable(text(), "where `archive` writes its files", "./archive"),
  CHECKPOINT_PRIVATE_KEY_FILE: variable(text(), "the private key `archive` signs with"),
  CHECKPOINT_PUBLIC_KEY_FILE: variable(text(), "the public key `audit verify --file` checks with"),

  // The CLI
  REVIEW_PASSWORD: variable(text(), "`user add`'s password when --password is not given (else asked)"),
  REVIEW_RUNTIME_PASSWORD: variable(text(), "`db roles`' password for the runtime role when --password is not given"),
  DEBUG: variable(text(), "any value: the CLI prints the stack of an unexpected error"),
} satisfies Record<string, Variable<unknown>>;

export type VariableName = keyof typeof VARIABLES;
export const VARIABLE_NAMES = Object.keys(VARIABLES) as VariableName[];

/** The variables' values, parsed. */
export type Settings = { readonly [N in VariableName]: z.output<(typeof VARIABLES)[N]["schema"]> };
