import { can, type Permission } from "./roles";
import type { Grant } from "./grant";

/*
 * Authorization with domains (docs/decisions/0029-domains.md). A permission holds for a record
 * when one of the caller's grants allows it and is global or names the record's domain. A record
 * whose kind belongs to no domain (`domain` null) is reached by global grants only.
 */

/** May the holder of `grants` do `permission` on something of `domain` (null: no domain)? */
export function canIn(grants: readonly Grant[], permission: Permission, domain: string | null): boolean {
  return grants.some((g) => can(g.role, permission) && (g.domain === null || g.domain === domain));
}

/** Does `permission` hold anywhere at all? The coarse check a route makes before it reads a record. */
export function canAnywhere(grants: readonly Grant[], permission: Permission): boolean {
  return grants.some((g) => can(g.role, permission));
}

/**
 * Where `permission` holds: `all` (a global grant allows it), or the list of domains (possibly
 * empty). Lists, counts and exports filter by this.
 */
export function domainsWhere(grants: readonly Grant[], permission: Permission): "all" | string[] {
  const domains = new Set<string>();
  for (const g of grants) {
    if (!can(g.role, permission)) continue;
    if (g.domain === null) return "all";
    domains.add(g.domain);
  }
  return [...domains].sort();
}
