import { can, type Permission, type Role } from "./roles";
import { canAnywhere, canIn } from "./rules";
import type { Grant } from "./grant";
import { unprocessable } from "@/lib/domain/refusal";

/*
 * Which permissions a grant in one domain cannot carry (docs/decisions/0030-domain-enforcement.md).
 * The decision log is one hash chain over every domain and cannot be cut by domain without
 * breaking what makes it verifiable: reading it (and its exports) takes a global grant. A scoped
 * person still sees a record's own history on the record's page. The metrics (GET /api/metrics)
 * are counts over every domain and this process's own counters, which no domain owns: a scoped
 * identity gets 403 rather than other domains' counts. No server imports here: the console's
 * navigation reads the same rule.
 */
export const GLOBAL_ONLY_PERMISSIONS: readonly Permission[] = ["audit.read", "users.manage", "metrics.read"];

/**
 * Roles that are held in every domain or not at all: an admin manages people, grants and tokens
 * of every domain, so an admin "of payments" could grant themselves anything anywhere. Giving one
 * with a domain is refused (lib/domains/manage.ts refuseScopedGlobalRole).
 */
export const GLOBAL_ONLY_ROLES: readonly Role[] = ["admin"];

/** Does the holder of `grants` (or a role held everywhere) have `permission` somewhere at all? */
export function holdsPermission(who: Role | readonly Grant[], permission: Permission): boolean {
  if (typeof who === "string") return can(who, permission);
  return GLOBAL_ONLY_PERMISSIONS.includes(permission) ? canIn(who, permission, null) : canAnywhere(who, permission);
}

/** A 422 naming `domain` when a role that only exists everywhere (admin) is given in one domain. */
export function refuseScopedGlobalRole(role: Role, domain: string | null): void {
  if (domain === null || !GLOBAL_ONLY_ROLES.includes(role)) return;
  throw unprocessable(
    "global-role",
    `domain: ${role} is held in every domain or not at all; give it without a domain`,
    {
      issues: [{ path: "domain", message: `${role} cannot be given in one domain` }],
    },
  );
}
