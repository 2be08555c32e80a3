import { appendDecision } from "@/lib/audit";
import { db } from "@/lib/db/client";
import type { Prisma } from "@/lib/generated/prisma/client";
import { PERSON_ROLES, type PersonRole } from "@/lib/access/client";
import type { GroupGrant } from "./oidc-config";

// The grants single sign-on gives (docs/decisions/0036-single-sign-on.md): at every sign-in the
// person's `source = 'oidc'` rows of role_grants become exactly what the groups claim maps to.
// Grants made by hand (source 'manual') are never touched.

/** Who writes these rows and the decision-log entry. */
export const OIDC_ACTOR = "system:oidc";

function sameGrant(a: GroupGrant, b: GroupGrant): boolean {
  return a.role === b.role && a.domain === b.domain;
}

function describe(grant: GroupGrant): string {
  return grant.domain ? `${grant.role}@${grant.domain}` : grant.role;
}

/**
 * The grants whose domain exists (role_grants.domain references domains): a grant to a domain
 * nobody created yet would fail the insert, so it is left out and named in `missing`.
 */
export async function grantsWithKnownDomains(
  grants: readonly GroupGrant[],
): Promise<{ grants: GroupGrant[]; missing: string[] }> {
  const names = [...new Set(grants.flatMap((g) => (g.domain ? [g.domain] : [])))];
  const known = names.length
    ? new Set(
        (await db().domain.findMany({ where: { name: { in: names } }, select: { name: true } })).map((d) => d.name),
      )
    : new Set<string>();
  const missing = names.filter((n) => !known.has(n));
  return { grants: grants.filter((g) => g.domain === null || known.has(g.domain)), missing };
}

/**
 * The headline role (users.role, shown and used where one role is needed): kept while one of the
 * person's grants has it, else the first of PERSON_ROLES that a grant has.
 */
export function headlineRole(current: string, grants: readonly GroupGrant[]): PersonRole | null {
  const roles = new Set(grants.map((g) => g.role));
  if ((roles as Set<string>).has(current)) return current as PersonRole;
  return PERSON_ROLES.find((r) => roles.has(r)) ?? null;
}

export interface SyncResult {
  before: GroupGrant[];
  after: GroupGrant[];
  changed: boolean;
  role: PersonRole | null;
}

type Tx = Prisma.TransactionClient;

async function oidcGrantsOf(tx: Tx, userId: string): Promise<GroupGrant[]> {
  const rows = await tx.roleGrant.findMany({
    where: { userId, source: "oidc" },
    select: { role: true, domain: true },
    orderBy: [{ role: "asc" }, { domain: "asc" }],
  });
  return rows.map((r) => ({ role: r.role as PersonRole, domain: r.domain }));
}

/**
 * Replaces the person's oidc grants with `grants` in one transaction, keeps users.role to one of
 * their grants' roles, and writes one `user.grants-synced` decision-log entry (before/after)
 * when anything changed. The rows are locked first, so two sign-ins of one person at once
 * end with one set, not a mix.
 */
export async function syncOidcGrants(userId: string, grants: readonly GroupGrant[]): Promise<SyncResult> {
  return db().$transaction(async (tx) => {
    const people = await tx.$queryRaw<{ role: string; email: string }[]>`
      SELECT role::text AS role, email FROM users WHERE id = ${userId}::uuid FOR UPDATE`;
    const person = people[0];
    if (!person) throw new Error(`no user ${userId}`);
    const before = await oidcGrantsOf(tx, userId);
    const after = grants.filter((g, i) => grants.findIndex((o) => sameGrant(o, g)) === i);
    const removed = before.filter((b) => !after.some((a) => sameGrant(a, b)));
    const added = after.filter((a) => !before.some((b) => sameGrant(a, b)));
    for (const grant of removed) {
      await tx.roleGrant.deleteMany({ where: { userId, source: "oidc", role: grant.role, domain: grant.domain } });
    }
    for (const grant of added) {
      await tx.roleGrant.create({
        data: { userId, role: grant.role, domain: grant.domain, source: "oidc", createdBy: OIDC_ACTOR },
      });
    }
    const manual = (
      await tx.roleGrant.findMany({ where: { userId, source: "manual" }, select: { role: true, domain: true } })
    ).map((r) => ({ role: r.role as PersonRole, domain: r.domain }));
    const role = headlineRole(person.role, [...manual, ...after]);
    const roleChanged = role !== null && role !== person.role;
    if (roleChanged) await tx.user.update({ where: { id: userId }, data: { role } });
    const changed = removed.length > 0 || added.length > 0;
    if (changed || roleChanged) {
      await appendDecision(tx, {
        actor: OIDC_ACTOR,
        action: "user.grants-synced",
        reason: `single sign-on: ${after.map(describe).join(", ") || "no grants"} for ${person.email}`,
        details: {
          source: "oidc",
          userId,
          email: person.email,
          before: before.map((g) => ({ role: g.role, domain: g.domain })),
          after: after.map((g) => ({ role: g.role, domain: g.domain })),
          ...(roleChanged ? { role: { from: person.role, to: role } } : {}),
        },
      });
    }
    return { before, after, changed, role };
  });
}
