import { db } from "@/lib/db/client";
import { Prisma } from "@/lib/generated/prisma/client";
import type { PersonView } from "./person-view";

interface PersonRow {
  id: string;
  email: string;
  role: PersonView["role"];
  banned: boolean;
  ban_reason: string | null;
  has_password: boolean;
  open_sessions: number;
  created_at: Date;
}

async function readPeople(where: Prisma.Sql): Promise<PersonView[]> {
  const rows = await db().$queryRaw<PersonRow[]>`
    SELECT u.id::text, u.email, u.role::text AS role, u.banned, u.ban_reason, u.created_at,
           EXISTS (SELECT 1 FROM accounts a
                    WHERE a.user_id = u.id AND a.provider_id = 'credential' AND a.password IS NOT NULL) AS has_password,
           (SELECT count(*)::int FROM sessions s WHERE s.user_id = u.id AND s.expires_at > now()) AS open_sessions
      FROM users u ${where}
     ORDER BY u.email`;
  return rows.map((r) => ({
    id: r.id,
    email: r.email,
    role: r.role,
    // No password: invited, or reset, and the link not used yet.
    state: r.banned ? "disabled" : r.has_password ? "active" : "invited",
    disabledReason: r.banned ? r.ban_reason : null,
    openSessions: r.open_sessions,
    createdAt: r.created_at.toISOString(),
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
