import type { Actor } from "./actor";
import type { Role } from "./roles";
import type { Grant } from "./grant";
import { isUuid } from "@/lib/domain/ids";
import type { Prisma } from "@/lib/generated/prisma/client";

type Tx = Prisma.TransactionClient;

/**
 * Where a person or token stands now: the actor as it is at this moment (its role and grants read
 * now, never as they were when it asked for something), and why it no longer counts at all.
 * Everything that runs later on someone's authority — an approved request, a bulk operation, an
 * automatic-replay switch — reads this at the moment it runs.
 */
export interface Standing {
  actor: Actor;
  /** Set when the actor may do nothing any more: disabled, revoked, expired, gone. */
  gone: string | null;
}

/**
 * The standing of `ref` (`user:<id>` / `token:<id>`), read inside the caller's transaction (a
 * change made earlier in it counts). Null when `ref` names no person or token this console knows
 * how to check (a legacy row, a system actor, an in-process consumer).
 */
export async function standingOf(tx: Tx, ref: string | null): Promise<Standing | null> {
  const match = ref ? /^(user|token):(.+)$/.exec(ref) : null;
  if (!match || !isUuid(match[2]!)) return null;
  const [, kind, id] = match as unknown as [string, "user" | "token", string];
  return kind === "user" ? personStanding(tx, id) : tokenStanding(tx, id);
}

const vanished = (kind: "user" | "token", id: string): Standing => ({
  actor: { kind, id, label: `${kind}:${id}`, role: "auditor", grants: [], person: null },
  gone: `${kind}:${id} no longer exists`,
});

async function personStanding(tx: Tx, id: string): Promise<Standing> {
  const rows = await tx.$queryRaw<{ email: string; role: Role; banned: boolean }[]>`
    SELECT email, role::text AS role, COALESCE(banned, false) AS banned FROM users WHERE id = ${id}::uuid`;
  const user = rows[0];
  if (!user) return vanished("user", id);
  const label = `user:${user.email}`;
  const grants = await tx.$queryRaw<Grant[]>`
    SELECT DISTINCT role::text AS role, domain FROM role_grants WHERE user_id = ${id}::uuid ORDER BY 1, 2`;
  return {
    actor: { kind: "user", id, label, role: user.role, grants, person: id },
    gone: user.banned ? `${label} was disabled` : null,
  };
}

async function tokenStanding(tx: Tx, id: string): Promise<Standing> {
  const rows = await tx.$queryRaw<
    {
      name: string;
      role: Role;
      domain: string | null;
      person: string | null;
      revoked: boolean;
      expired: boolean;
    }[]
  >`
    SELECT name, role::text AS role, domain, created_by_user_id::text AS person, revoked_at IS NOT NULL AS revoked,
           COALESCE(expires_at <= now(), false) AS expired
      FROM api_tokens WHERE id = ${id}::uuid`;
  const token = rows[0];
  if (!token) return vanished("token", id);
  const label = `token:${token.name}`;
  return {
    actor: {
      kind: "token",
      id,
      label,
      role: token.role,
      grants: [{ role: token.role, domain: token.domain }],
      person: token.person,
    },
    gone: token.revoked ? `${label} was revoked` : token.expired ? `${label} has expired` : null,
  };
}

/** The person behind `ref`: the person itself, or the one who issued the token (null: none known). */
export async function personBehind(tx: Tx, ref: string | null): Promise<string | null> {
  return (await standingOf(tx, ref))?.actor.person ?? null;
}
