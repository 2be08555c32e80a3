import { db } from "@/lib/db/client";
import { domainsWhere, PERMISSIONS } from "@/lib/access";
import type { Grant } from "@/lib/access/client";
import { Prisma } from "@/lib/generated/prisma/client";

/** The roles that act on records: lib/access's answer, not a list of our own. */
const ACTING_ROLES = PERMISSIONS["reviews.act"];
type ActingRole = (typeof ACTING_ROLES)[number];

/** A person a record can be assigned to (ADR 0028). */
export interface AssigneeOption {
  id: string;
  name: string;
  email: string;
  role: ActingRole;
}

/**
 * Who may be assigned a record: people not disabled who hold a role that acts on records (owner,
 * support) in some domain, by email. Readable by the people who assign, unlike the admin's list
 * of people: it holds nothing but who they are. For a caller who assigns in some domains only
 * (ADR 0030), the people who act in one of those domains (or everywhere): nobody else can be
 * assigned a record the caller sees.
 */
export async function listAssignees(callerGrants?: readonly Grant[]): Promise<AssigneeOption[]> {
  const where = callerGrants ? domainsWhere(callerGrants, "reviews.assign") : "all";
  const inDomains =
    where === "all" ? Prisma.empty : Prisma.sql`AND (g.domain IS NULL OR g.domain = ANY(${where}::text[]))`;
  const rows = await db().$queryRaw<{ id: string; name: string; email: string; role: string; acting: string[] }[]>`
    SELECT * FROM (
      SELECT u.id::text AS id, u.name, u.email, u.role::text AS role,
             ARRAY(SELECT DISTINCT g.role::text FROM role_grants g
                    WHERE g.user_id = u.id AND g.role::text = ANY(${ACTING_ROLES}::text[]) ${inDomains}) AS acting
        FROM users u
       WHERE NOT COALESCE(u.banned, false)) people
     WHERE cardinality(acting) > 0
     ORDER BY email`;
  // The headline role as the list shows it; a person whose headline role does not act (an auditor
  // with an owner grant in one domain) is shown as the acting role they hold.
  return rows.map(({ acting, ...r }) => ({ ...r, role: actingRole(r.role, acting) }));
}

function actingRole(headline: string, held: readonly string[]): ActingRole {
  const acting = ACTING_ROLES.filter((role) => held.includes(role));
  return acting.find((role) => role === headline) ?? acting[0]!;
}
