import type { BetterAuthOptions, BetterAuthPlugin } from "better-auth";
import { genericOAuth } from "better-auth/plugins";
import { db } from "@/lib/db/client";
import { log } from "@/lib/log";
import { grantsForGroups, groupsFromClaims, OIDC_PROVIDER_ID, type GroupGrant, type OidcConfig } from "./oidc-config";
import { grantsWithKnownDomains, headlineRole, syncOidcGrants } from "./oidc-grants";
import { DISABLED_MESSAGE } from "./admin-plugin";

// Single sign-on through Better Auth's generic OAuth plugin (docs/decisions/0036-single-sign-on.md).
// The plugin does the protocol: discovery, state, PKCE, nonce, ID-token signature and issuer
// checks, the account row. This module decides who may come in and with which grants:
//
// 1. `validateUserInfo` (Better Auth's gate, run before a user is created or signed in) maps the
//    groups claim to grants. None: the sign-in is refused (403, code NO_GRANTS) before any row is
//    written. A disabled person is refused here too.
// 2. A new person's users.role (required, never taken from the provider) is set from those grants
//    by the user-create hook.
// 3. The session-create hook, which runs once the person is known, replaces their oidc grants
//    (./oidc-grants.ts) before the session exists: a session never starts with yesterday's grants.
//
// The grants decided in (1) travel to (2) and (3) on the request's endpoint context, the object
// Better Auth hands to all three within one callback request.

export const NO_GRANTS_CODE = "NO_GRANTS";
/** The refusal to link single sign-on to a person who signs in with a password. */
export const PASSWORD_ACCOUNT_CODE = "PASSWORD_ACCOUNT_NOT_LINKED";

const decided = new WeakMap<object, GroupGrant[]>();

interface ValidationInput {
  user: { id?: unknown; email?: unknown };
  source: { method?: string; action?: string; oauth?: { providerId?: string; profile?: unknown } };
}

type ValidationResult = { error: string; errorDescription?: string } | undefined;

function isOidcSource(source: ValidationInput["source"]): boolean {
  return source.method === "oauth" && source.oauth?.providerId === OIDC_PROVIDER_ID;
}

/** Better Auth's `user.validateUserInfo`: the groups decide; no grant, no entry. */
export function oidcValidateUserInfo(config: OidcConfig) {
  return async (data: ValidationInput, ctx: object): Promise<ValidationResult> => {
    if (!isOidcSource(data.source)) return undefined;
    const claims = (data.source.oauth?.profile ?? {}) as Record<string, unknown>;
    const groups = groupsFromClaims(claims, config.groupsClaim);
    const { grants, missing } = await grantsWithKnownDomains(grantsForGroups(groups, config.groupGrants));
    if (missing.length) {
      log.warn(
        { domains: missing },
        "single sign-on: OIDC_GROUP_GRANTS names domains that do not exist; those grants are left out",
      );
    }
    if (grants.length === 0) {
      log.info(
        { email: String(data.user.email ?? ""), groups: groups.length },
        "single sign-on refused: no group maps to a grant",
      );
      return {
        error: NO_GRANTS_CODE,
        errorDescription: `Your groups at ${config.providerName} give you no role in the Review Console. Ask an admin.`,
      };
    }
    // An existing person (sign-in or linking an account): a disabled one does not come in, and
    // nothing about their grants changes.
    if (typeof data.user.id === "string" && data.source.action !== "create-user") {
      const person = await db().user.findUnique({ where: { id: data.user.id }, select: { banned: true } });
      if (person?.banned) return { error: "BANNED_USER", errorDescription: DISABLED_MESSAGE };
    }
    // Linking the provider's identity to an existing person by email: never to one who has a
    // password (a break-glass admin, anyone made with `user add --password`). Whoever controls
    // that email at the provider would otherwise own the account and its grants. An admin moves
    // such a person to single sign-on by clearing the password (`user reset-password`).
    if (typeof data.user.id === "string" && data.source.action === "link-account") {
      if (await hasPassword(data.user.id)) {
        log.warn(
          { userId: data.user.id, email: String(data.user.email ?? "") },
          "single sign-on refused: the person with this email signs in with a password; not linked",
        );
        return {
          error: PASSWORD_ACCOUNT_CODE,
          errorDescription:
            "This email belongs to a person who signs in with a password. Sign in with it, or ask an admin.",
        };
      }
    }
    decided.set(ctx, grants);
    return undefined;
  };
}

/** Whether the person has a password to sign in with (a credential account holding a hash). */
async function hasPassword(userId: string): Promise<boolean> {
  const found = await db().account.findFirst({
    where: { userId, providerId: "credential", password: { not: null } },
    select: { id: true },
  });
  return found !== null;
}

/** The hooks that give a new person their headline role and sync grants at each SSO sign-in. */
export function oidcDatabaseHooks(): NonNullable<BetterAuthOptions["databaseHooks"]> {
  return {
    user: {
      create: {
        before: async (user, ctx) => {
          const grants = ctx ? decided.get(ctx) : undefined;
          if (!grants) return;
          // Never from the provider's profile (role has input: false): from the mapped grants.
          return { data: { ...user, role: headlineRole("", grants) } };
        },
      },
    },
    session: {
      create: {
        before: async (session, ctx) => {
          const grants = ctx ? decided.get(ctx) : undefined;
          if (!grants) return;
          decided.delete(ctx!);
          await syncOidcGrants(session.userId, grants);
        },
      },
    },
  };
}

/** The generic OAuth plugin, configured for the one provider of OIDC_*. */
export function oidcPlugin(config: OidcConfig): BetterAuthPlugin {
  return genericOAuth({
    config: [
      {
        providerId: OIDC_PROVIDER_ID,
        name: config.providerName,
        discoveryUrl: config.discoveryUrl,
        clientId: config.clientId,
        clientSecret: config.clientSecret,
        // The registered callback, for the authorization request and the code exchange alike.
        redirectURI: config.redirectURI,
        // Sent as a client_secret_basic header (the OpenID Connect default).
        authentication: "basic",
        scopes: config.scopes,
        pkce: true,
        // Only ID tokens signed by the discovered keys count (no unsigned fallback).
        requireIdTokenVerification: true,
        // The console shows people by email; Better Auth's required name is the email too.
        mapProfileToUser: (profile) => ({ name: String(profile.email ?? "") }),
      },
    ],
  }) as BetterAuthPlugin;
}
