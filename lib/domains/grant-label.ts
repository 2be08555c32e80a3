import type { Grant } from "@/lib/access/client";

// Isomorphic: how the console writes a grant, `owner · payments` (scoped) or `owner` (global).

export function grantLabel(grant: Pick<Grant, "role" | "domain">): string {
  return grant.domain === null ? grant.role : `${grant.role} · ${grant.domain}`;
}

/** Every grant, global first: `auditor, owner · payments`. */
export function grantsLabel(grants: readonly Pick<Grant, "role" | "domain">[]): string {
  return [...grants]
    .sort(
      (a, b) => (a.domain === null ? 0 : 1) - (b.domain === null ? 0 : 1) || grantLabel(a).localeCompare(grantLabel(b)),
    )
    .map(grantLabel)
    .join(", ");
}
