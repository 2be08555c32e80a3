import type { PersonRole } from "@/lib/auth/person-roles";
import type { Prisma } from "@/lib/generated/prisma/client";
import { isUuid } from "@/lib/domain/ids";

// What every change to a person shares: finding and locking them, ending their sessions and
// unused password links, and the refusals (Rallly-style results, not exceptions).

export type Tx = Prisma.TransactionClient;

/** A person by id (the API) or by email (the CLI). */
export type PersonRef = { id: string } | { email: string };

export interface LockedPerson {
  id: string;
  email: string;
  role: PersonRole;
  banned: boolean;
}

export interface ChangeRefused {
  ok: false;
  status: 404 | 409 | 422;
  code: string;
  message: string;
}

export function describeRef(ref: PersonRef): string {
  return "id" in ref ? `person ${ref.id}` : `person with email ${ref.email}`;
}

export function notFound(ref: PersonRef): ChangeRefused {
  return { ok: false, status: 404, code: "not-found", message: `no ${describeRef(ref)}` };
}

/** The person's row, locked for the rest of the transaction; null when there is none. */
export async function lockPerson(tx: Tx, ref: PersonRef): Promise<LockedPerson | null> {
  if ("id" in ref && !isUuid(ref.id)) return null;
  const rows = await tx.$queryRawUnsafe<LockedPerson[]>(
    `SELECT id::text, email, role::text AS role, banned FROM users
      WHERE ${"id" in ref ? "id = $1::uuid" : "email = lower($1)"} FOR UPDATE`,
    "id" in ref ? ref.id : ref.email,
  );
  return rows[0] ?? null;
}

/** Ends every session of the person now: their next request is signed out. Returns how many. */
export async function endSessions(tx: Tx, userId: string): Promise<number> {
  return tx.$executeRawUnsafe(`DELETE FROM sessions WHERE user_id = $1::uuid`, userId);
}

/**
 * Spends the person's unused one-time password links (Better Auth's verification rows of a
 * password reset hold the person's id as `value`).
 */
export async function spendPasswordLinks(tx: Tx, userId: string): Promise<void> {
  await tx.$executeRawUnsafe(`DELETE FROM verifications WHERE value = $1`, userId);
}

/** People may not disable themselves or change their own role (they would lock themselves out). */
export function refuseSelf(actorRef: string | null, person: LockedPerson, what: string): ChangeRefused | null {
  if (actorRef !== `user:${person.id}`) return null;
  return { ok: false, status: 422, code: "own-account", message: `you cannot ${what} your own account` };
}
