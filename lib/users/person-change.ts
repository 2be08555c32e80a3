import { type ChangeActor } from "@/lib/access";
import type { PersonRole } from "@/lib/access/client";
import { appendDecision } from "@/lib/audit";
import { isUuid } from "@/lib/domain/ids";
import { notFound, unprocessable } from "@/lib/domain/refusal";
import { Prisma } from "@/lib/generated/prisma/client";
import type { Tx } from "@/lib/db/client";

// What every change to a person shares: finding and locking them, refusing a change to one's own
// account, ending their sessions and unused password links, and the change's decision-log entry.
// A refusal is thrown (lib/domain/refusal.ts): inside the change's transaction, nothing is written.

/** A person by id (the API) or by email (the CLI). */
export type PersonRef = { id: string } | { email: string };

export interface LockedPerson {
  id: string;
  email: string;
  role: PersonRole;
  banned: boolean;
}

function describeRef(ref: PersonRef): string {
  return "id" in ref ? `person ${ref.id}` : `person with email ${ref.email}`;
}

/** The person's row, locked for the rest of the transaction; a not-found refusal when there is none. */
export async function lockPerson(tx: Tx, ref: PersonRef): Promise<LockedPerson> {
  // Not a uuid: nobody has that id, and PostgreSQL would fail the cast.
  const rows =
    "id" in ref && !isUuid(ref.id)
      ? []
      : await tx.$queryRaw<LockedPerson[]>`
          SELECT id::text AS id, email, role::text AS role, banned FROM users
           WHERE ${"id" in ref ? Prisma.sql`id = ${ref.id}::uuid` : Prisma.sql`email = lower(${ref.email})`}
             FOR UPDATE`;
  const person = rows[0];
  if (!person) throw notFound(`no ${describeRef(ref)}`);
  return person;
}

/** People may not disable themselves or change their own role (they would lock themselves out). */
export function refuseOwnAccount(actor: ChangeActor, person: LockedPerson, what: string): void {
  if (actor.ref === `user:${person.id}`) throw unprocessable("own-account", `you cannot ${what} your own account`);
}

/** Ends every session of the person now: their next request is signed out. Returns how many. */
export function endSessions(tx: Tx, userId: string): Promise<number> {
  return tx.$executeRaw`DELETE FROM sessions WHERE user_id = ${userId}::uuid`;
}

/**
 * Ends every session of the person and spends their unused one-time password links (Better
 * Auth's verification rows of a password reset hold the person's id as `value`): nothing they
 * were given before still lets them in. Returns how many sessions ended.
 */
export async function endSessionsAndLinks(tx: Tx, userId: string): Promise<number> {
  const sessionsEnded = await endSessions(tx, userId);
  await tx.$executeRaw`DELETE FROM verifications WHERE value = ${userId}`;
  return sessionsEnded;
}

/** The change's decision-log entry, in the name of whoever asked for it. */
export function recordChange(
  tx: Tx,
  actor: ChangeActor,
  entry: { action: string; reason: string; details: Prisma.InputJsonObject },
): Promise<void> {
  return appendDecision(tx, { actor: actor.label, actorRole: actor.role, ...entry });
}
