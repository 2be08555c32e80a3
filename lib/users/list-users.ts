import { db } from "@/lib/db/client";
import { Prisma } from "@/lib/generated/prisma/client";
import type { PersonGrant, PersonView } from "./person-view";

interface PersonRow {
  id: string;
  email: string;
  role: PersonView["role"];
  grants: PersonGrant[];
  banned: boolean;
  banReason: string | null;
  hasPassword: boolean;
  openSessions: number;
  createdAt: Date;
}

async function readPeople(where: Prisma.Sql): Promise<PersonView[]> {
  const rows = await db().$queryRaw<PersonRow[]>`
    SELECT u.id::text AS id, u.email, u.role::text AS role, u.banned, u.ban_reason AS "banReason",
           u.created_at AS "createdAt",
           COALESCE((SELECT jsonb_agg(jsonb_build_object('role', g.role::text, 'domain', g.domain, 'source', g.source)
                                      ORDER BY g.domain NULLS FIRST, g.role, g.source)
                       FROM role_grants g WHERE g.user_id = u.id), '[]') AS grants,
           EXISTS (SELECT 1 FROM accounts a
                    WHERE a.user_id = u.id AND a.provider_id = 'credential' AND a.password IS NOT NULL) AS "hasPassword",
           (SELECT count(*)::int FROM sessions s WHERE s.user_id = u.id AND s.expires_at > now()) AS "openSessions"
      FROM users u ${where}
     ORDER BY u.email`;
  return rows.map((r) => ({
    id: r.id,
    email: r.email,
    role: r.role,
    grants: r.grants,
    // No password: invited, or reset, and the link not used yet.
    state: r.banned ? "disabled" : r.hasPassword ? "active" : "invited",
    disabledReason: r.banned ? r.banReason : null,
    openSessions: r.openSessions,
    createdAt: r.createdAt.toISOString(),
  }));
}

/** Every person, by email, with their state and open sessions. */
export function listUsers(): Promise<PersonView[]> {
  return readPeople(Prisma.empty);
}

/** One person as listUsers shows them, or null. */
export async function getUserView(id: string): Promise<PersonView | null> {
  return (await readPeople(Prisma.sql`WHERE u.id = ${id}::uuid`))[0] ?? null;
}
