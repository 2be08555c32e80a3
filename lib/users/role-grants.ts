import type { ChangeActor } from "@/lib/access";
import { PERSON_ROLES, type PersonRole, refuseScopedGlobalRole } from "@/lib/access/client";
import { db } from "@/lib/db/client";
import { conflict, notFound } from "@/lib/domain/refusal";
import { requireDomain } from "@/lib/domains";
import { type PausedByChange, pauseWhatLostAuthority } from "@/lib/operations";
import { lockPerson, type PersonRef, recordChange, refuseOwnAccount } from "./person-change";
import type { Tx } from "@/lib/db/client";

// Granting and revoking a person's roles, globally or in one domain (docs/decisions/0029-domains.md).
// Grants are read on every request (lib/access/grants.ts), so a change works from the person's
// next request: their sessions are not ended. users.role, the headline the console shows, is
// kept equal to one of their grants' roles.

export interface GrantChanged {
  userId: string;
  email: string;
  role: PersonRole;
  domain: string | null;
  /** The headline role before and after (equal when it did not move). */
  headline: { from: PersonRole; to: PersonRole };
  paused: PausedByChange;
}

const where = (domain: string | null) => (domain === null ? "every domain" : `domain ${domain}`);

/** Adds a manual grant. Refused: no such person or domain, one's own account, a grant already held. */
export async function grantRole(
  ref: PersonRef,
  role: PersonRole,
  domain: string | null,
  reason: string,
  actor: ChangeActor,
): Promise<GrantChanged> {
  return db().$transaction(async (tx) => {
    const person = await lockPerson(tx, ref);
    refuseOwnAccount(actor, person, "change the grants of");
    refuseScopedGlobalRole(role, domain);
    if (domain !== null) await requireDomain(tx, domain);
    const inserted = await tx.$executeRaw`
      INSERT INTO role_grants (user_id, role, domain, source, created_by)
      VALUES (${person.id}::uuid, ${role}::"Role", ${domain}, 'manual', ${actor.label})
      ON CONFLICT DO NOTHING`;
    if (inserted === 0) throw conflict("grant-exists", `${person.email} already holds ${role} in ${where(domain)}`);
    const headline = await keepHeadline(tx, person.id, person.role);
    await recordChange(tx, actor, {
      action: "user.granted",
      reason,
      details: { userId: person.id, email: person.email, role, domain, headline },
    });
    return { userId: person.id, email: person.email, role, domain, headline, paused: { operations: [], kinds: [] } };
  });
}

/**
 * Removes a manual grant (grants from single sign-on are replaced at each sign-in, not here).
 * Revoking the last grant is allowed: the person can then do nothing until granted again, and
 * the headline role stays what it was. What ran on their authority and may no longer pauses.
 */
export async function revokeRole(
  ref: PersonRef,
  role: PersonRole,
  domain: string | null,
  reason: string,
  actor: ChangeActor,
): Promise<GrantChanged> {
  return db().$transaction(async (tx) => {
    const person = await lockPerson(tx, ref);
    refuseOwnAccount(actor, person, "change the grants of");
    const deleted = await tx.$executeRaw`
      DELETE FROM role_grants
       WHERE user_id = ${person.id}::uuid AND role = ${role}::"Role" AND domain IS NOT DISTINCT FROM ${domain}
         AND source = 'manual'`;
    if (deleted === 0) throw notFound(`${person.email} holds no ${role} grant in ${where(domain)}`);
    const headline = await keepHeadline(tx, person.id, person.role);
    await recordChange(tx, actor, {
      action: "user.revoked",
      reason,
      details: { userId: person.id, email: person.email, role, domain, headline },
    });
    const paused = await pauseWhatLostAuthority(
      tx,
      `user:${person.id}`,
      `${actor.label} revoked their ${role} grant in ${where(domain)}: ${reason}`,
    );
    return { userId: person.id, email: person.email, role, domain, headline, paused };
  });
}

/**
 * Moves users.role to one of the person's grants when it is no longer among them: a global
 * grant before a domain one, then the order of PERSON_ROLES. No grants left: it stays.
 */
async function keepHeadline(
  tx: Tx,
  userId: string,
  current: PersonRole,
): Promise<{ from: PersonRole; to: PersonRole }> {
  const grants = await tx.$queryRaw<{ role: PersonRole; global: boolean }[]>`
    SELECT role::text AS role, bool_or(domain IS NULL) AS global FROM role_grants
     WHERE user_id = ${userId}::uuid GROUP BY role`;
  if (grants.length === 0 || grants.some((g) => g.role === current)) return { from: current, to: current };
  const rank = (g: { role: PersonRole; global: boolean }) => (g.global ? 0 : 10) + PERSON_ROLES.indexOf(g.role);
  const to = [...grants].sort((a, b) => rank(a) - rank(b))[0]!.role;
  await tx.$executeRaw`UPDATE users SET role = ${to}::"Role", updated_at = now() WHERE id = ${userId}::uuid`;
  return { from: current, to };
}
