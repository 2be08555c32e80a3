import { admin } from "better-auth/plugins/admin";

// Better Auth's admin plugin, for its model of a disabled person (docs/decisions/0011): the
// `banned` flag on the user, and its session hook that refuses to start a session for a banned
// person (403 BANNED_USER) at every sign-in. Its endpoints (/admin/*) are not served: they take
// no reason, cannot write the decision log in the change's transaction, need a signed-in admin
// (the CLI has none), and impersonation would let an admin act as an owner. The console's own
// lib/users/* make the same changes instead, and `disabledPaths` keeps the plugin's off HTTP.

export const DISABLED_MESSAGE = "This account is disabled. Ask an admin.";

export function adminPlugin() {
  return admin({ adminRoles: ["admin"], bannedUserMessage: DISABLED_MESSAGE });
}

/** The plugin's HTTP paths (`/admin/ban-user`, ...), for Better Auth's `disabledPaths`. */
export function adminPluginPaths(): string[] {
  return Object.values(adminPlugin().endpoints).map((endpoint) => endpoint.path);
}
