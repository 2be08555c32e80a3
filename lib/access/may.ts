import type { Actor } from "./actor";
import { grantsOf } from "./actor";
import type { Permission } from "./roles";
import { canIn } from "./rules";
import { domainOfColumn } from "./scope";
import { holdsPermission } from "./scope-rules";

/**
 * What an action is about: one record (its kind's domain; null for a record in no domain), or
 * several domains at once (an operation's frozen selection, an approval request; `(none)` or null
 * for records in no domain). No target: anywhere at all, the coarse check a route makes first.
 */
export type Target = { domain: string | null } | { domains: readonly (string | null)[] };

/**
 * May `actor` do `permission` to `target`? The one answer every path asks (ADR 0037): a grant
 * allows the permission and is global or names the domain of every record touched; a record in
 * no domain takes a global grant; a permission only global grants carry (the decision log,
 * people) takes one whatever the target.
 */
export function may(actor: Pick<Actor, "role" | "grants">, permission: Permission, target?: Target): boolean {
  const grants = grantsOf(actor);
  if (target === undefined) return holdsPermission(grants, permission);
  const domains =
    "domains" in target ? target.domains.map((d) => (d === null ? null : domainOfColumn(d))) : [target.domain];
  return holdsPermission(grants, permission) && domains.every((domain) => canIn(grants, permission, domain));
}
