import { GLOBAL_ONLY_ROLES, isPersonRole, type PersonRole } from "@/lib/access/client";
import type { ConfigProblem } from "@/lib/config/error";
import { ConfigError } from "@/lib/config/error";

// Single sign-on settings (docs/decisions/0036-single-sign-on.md): the rules that join several
// variables. The start's check (lib/server/config-check.ts) applies them with the configuration's
// own, so a bad one stops the start; lib/config parses each variable alone and knows no roles.
// No server imports: the login page's client button reads OIDC_PROVIDER_ID from here.

export { ConfigError };

/** The provider id in Better Auth: `/api/auth/sign-in/social` with `provider: "oidc"`, callback `/api/auth/callback/oidc`. */
export const OIDC_PROVIDER_ID = "oidc";
/** Where the provider sends the browser back, under the console's public URL (BETTER_AUTH_URL). */
export const OIDC_CALLBACK_PATH = `/api/auth/callback/${OIDC_PROVIDER_ID}`;

/** One grant that a group of the identity provider gives: a role, in a domain or everywhere (null). */
export interface GroupGrant {
  role: PersonRole;
  domain: string | null;
}

export interface OidcConfig {
  /** The issuer; discovery is `<issuer>/.well-known/openid-configuration`. */
  issuer: string;
  discoveryUrl: string;
  clientId: string;
  clientSecret: string;
  /**
   * The redirect URI registered at the provider: BETTER_AUTH_URL's origin + OIDC_CALLBACK_PATH.
   * Fixed, not derived from each request: Next hands Better Auth a request URL built from the
   * address it listens on, not the one the browser used, and a provider accepts only the
   * registered URI.
   */
  redirectURI: string;
  /** The sign-in button's label: "Sign in with <providerName>". */
  providerName: string;
  /** Asked of the provider; `openid` always. */
  scopes: string[];
  /** The claim (ID token or userinfo) holding the person's groups. */
  groupsClaim: string;
  /** Group name → the grants it gives. */
  groupGrants: Map<string, GroupGrant[]>;
}

type Env = Record<string, string | undefined>;

const DOMAIN_NAME = /^[a-z][a-z0-9-]{0,62}$/;

/**
 * OIDC_GROUP_GRANTS: `group=role[@domain]` pairs, comma-separated; a group may appear more than
 * once to give several grants. Without `@domain` the role holds in every domain.
 */
export function parseGroupGrants(text: string, setting = "OIDC_GROUP_GRANTS"): Map<string, GroupGrant[]> {
  const grants = new Map<string, GroupGrant[]>();
  const pairs = text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (pairs.length === 0) throw new ConfigError(setting, "maps no group; write group=role[@domain], comma-separated");
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    const group = eq > 0 ? pair.slice(0, eq).trim() : "";
    const grantText = eq > 0 ? pair.slice(eq + 1).trim() : "";
    if (!group || !grantText) throw new ConfigError(setting, `"${pair}" is not group=role[@domain]`);
    const at = grantText.indexOf("@");
    const role = at >= 0 ? grantText.slice(0, at) : grantText;
    const domain = at >= 0 ? grantText.slice(at + 1) : null;
    if (!isPersonRole(role)) {
      throw new ConfigError(
        setting,
        `"${role}" (for group ${group}) is not a role of people (owner, support, auditor, admin)`,
      );
    }
    if (domain !== null && !DOMAIN_NAME.test(domain)) {
      throw new ConfigError(setting, `"${domain}" (for group ${group}) is not a domain name (a-z, 0-9, -)`);
    }
    // The rule the API and the CLI apply to a grant (lib/domains/scope-rules.ts): an admin of
    // one domain could grant themselves anything anywhere.
    if (domain !== null && GLOBAL_ONLY_ROLES.includes(role)) {
      throw new ConfigError(
        setting,
        `"${pair}": ${role} is held in every domain or not at all; write ${group}=${role} without a domain`,
      );
    }
    const list = grants.get(group) ?? [];
    if (!list.some((g) => g.role === role && g.domain === domain)) list.push({ role, domain });
    grants.set(group, list);
  }
  return grants;
}

function required(env: Env, setting: string): string {
  const value = env[setting]?.trim();
  if (!value) throw new ConfigError(setting, "is required when OIDC_ISSUER is set");
  return value;
}

/** The SSO settings, or null when OIDC_ISSUER is unset (no single sign-on). Throws ConfigError. */
export function oidcConfig(env: Env): OidcConfig | null {
  const issuer = env.OIDC_ISSUER?.trim();
  if (!issuer) {
    for (const setting of ["OIDC_CLIENT_ID", "OIDC_CLIENT_SECRET", "OIDC_GROUP_GRANTS"]) {
      if (env[setting]?.trim()) throw new ConfigError("OIDC_ISSUER", `is required when ${setting} is set`);
    }
    return null;
  }
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw new ConfigError("OIDC_ISSUER", `"${issuer}" is not a URL`);
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopback(url.hostname))) {
    throw new ConfigError("OIDC_ISSUER", "must be an https URL (plain http only on a loopback address)");
  }
  // Every missing one named at once, as the start's check names every bad variable.
  const missing = ["OIDC_CLIENT_ID", "OIDC_CLIENT_SECRET", "BETTER_AUTH_URL", "OIDC_GROUP_GRANTS"].filter(
    (setting) => !env[setting]?.trim(),
  );
  if (missing.length > 0) {
    throw new ConfigError(missing.map((variable) => ({ variable, problem: "is required when OIDC_ISSUER is set" })));
  }
  const groupsClaim = env.OIDC_GROUPS_CLAIM?.trim() || "groups";
  return {
    issuer,
    discoveryUrl: `${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`,
    clientId: required(env, "OIDC_CLIENT_ID"),
    clientSecret: required(env, "OIDC_CLIENT_SECRET"),
    redirectURI: `${publicOrigin(required(env, "BETTER_AUTH_URL"))}${OIDC_CALLBACK_PATH}`,
    providerName: env.OIDC_PROVIDER_NAME?.trim() || "single sign-on",
    scopes: [...new Set(["openid", ...(env.OIDC_SCOPES?.trim() || "email profile").split(/[\s,]+/).filter(Boolean)])],
    groupsClaim,
    groupGrants: parseGroupGrants(required(env, "OIDC_GROUP_GRANTS")),
  };
}

/** BETTER_AUTH_URL, the console's public URL as browsers reach it: its origin. */
function publicOrigin(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError("BETTER_AUTH_URL", `"${text}" is not a URL`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new ConfigError("BETTER_AUTH_URL", "must be an http(s) URL: the console's public address");
  }
  return url.origin;
}

function isLoopback(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/** PASSWORD_SIGN_IN: `on` (default) or `off` (only single sign-on; needs OIDC_ISSUER). */
export function passwordSignInEnabled(env: Env): boolean {
  const value = env.PASSWORD_SIGN_IN?.trim().toLowerCase();
  if (!value || value === "on") return true;
  if (value !== "off") throw new ConfigError("PASSWORD_SIGN_IN", `"${env.PASSWORD_SIGN_IN}" is neither on nor off`);
  if (!env.OIDC_ISSUER?.trim())
    throw new ConfigError("PASSWORD_SIGN_IN", "off needs OIDC_ISSUER: nobody could sign in");
  return false;
}

/** Every problem of the sign-in settings in `env`, each naming its variable (none: an empty list). */
export function signInProblems(env: Env): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const check of [() => oidcConfig(env), () => passwordSignInEnabled(env)]) {
    try {
      check();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.problems);
    }
  }
  return problems;
}

/** The grants that these groups give (unknown groups give none), without duplicates. */
export function grantsForGroups(groups: readonly string[], mapping: Map<string, GroupGrant[]>): GroupGrant[] {
  const result: GroupGrant[] = [];
  for (const group of groups) {
    for (const grant of mapping.get(group) ?? []) {
      if (!result.some((g) => g.role === grant.role && g.domain === grant.domain)) result.push(grant);
    }
  }
  return result;
}

/** The groups claim as a list of strings: an array, or one string; anything else is no groups. */
export function groupsFromClaims(claims: Record<string, unknown>, claim: string): string[] {
  const value = claims[claim];
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string");
  return [];
}
