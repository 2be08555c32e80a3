import { can, type Permission, type Role } from "@/lib/auth/roles";
import { appendDecision, type DecisionEntry } from "@/lib/audit/append";
import type { Prisma } from "@/lib/generated/prisma/client";
import { isUuid } from "@/lib/domain/ids";
import { operationPermission } from "./create";
import { OPERATIONS_ACTOR } from "./items-state";
import type { OperationAction } from "./types";

// A bulk operation and an automatic-replay switch act on someone's authority: `<kind>:<id>` of
// the person or token who last set it going (created, confirmed or resumed the operation; turned
// the switch on), kept in `authority_actor`. When that person is disabled or their role no longer
// has the permission, or that token is revoked or expires, it pauses, with the reason in its
// `pause_reason` / `paused_reason` and in the decision log. Whoever resumes it (or turns the
// switch on again) and may do so becomes its authority.

type Tx = Prisma.TransactionClient;

/** The system actor for automatic-replay switches, as OPERATIONS_ACTOR is for operations. */
export const AUTO_REPLAY_SWITCH_ACTOR = "system:auto-replay";

/** Automatic replay of ready records schedules replays: the permission to resolve records. */
export const AUTO_REPLAY_PERMISSION: Permission = "reviews.resolve";

/** Where an actor stands now: its role, or why it no longer counts at all. */
interface Standing {
  label: string;
  role: Role | null;
  /** Set when the actor may do nothing any more: disabled, revoked, expired, gone. */
  gone: string | null;
}

/**
 * The standing of `authority`, read inside the caller's transaction (so a change made earlier
 * in it counts). Null when the authority names no person or token this console knows how to
 * check (a legacy row without one, a system actor, an in-process consumer): not checked.
 */
async function standingOf(tx: Tx, authority: string | null): Promise<Standing | null> {
  const match = authority ? /^(user|token):(.+)$/.exec(authority) : null;
  if (!match || !isUuid(match[2]!)) return null;
  const [, kind, id] = match;
  if (kind === "user") {
    const rows = await tx.$queryRaw<{ email: string; role: Role; banned: boolean }[]>`
      SELECT email, role::text AS role, banned FROM users WHERE id = ${id}::uuid`;
    const user = rows[0];
    if (!user) return { label: authority!, role: null, gone: `${authority} no longer exists` };
    const label = `user:${user.email}`;
    return { label, role: user.role, gone: user.banned ? `${label} was disabled` : null };
  }
  const rows = await tx.$queryRaw<{ name: string; role: Role; revoked: boolean; expired: boolean }[]>`
    SELECT name, role::text AS role, revoked_at IS NOT NULL AS revoked,
           COALESCE(expires_at <= now(), false) AS expired
      FROM api_tokens WHERE id = ${id}::uuid`;
  const token = rows[0];
  if (!token) return { label: authority!, role: null, gone: `${authority} no longer exists` };
  const label = `token:${token.name}`;
  const gone = token.revoked ? `${label} was revoked` : token.expired ? `${label} has expired` : null;
  return { label, role: token.role, gone };
}

/** Why `standing` no longer carries `permission`, or null when it still does. */
function lostBecause(standing: Standing, permission: Permission): string | null {
  if (standing.gone) return standing.gone;
  if (standing.role && !can(standing.role, permission)) {
    return `${standing.label} now has the role ${standing.role}, which may not ${permission}`;
  }
  return null;
}

/**
 * Why the operation's authority may no longer dispatch it, or null. The dispatcher asks before
 * every step (lib/operations/dispatcher.ts): that also catches a token that merely expired.
 */
export async function operationAuthorityLost(
  tx: Tx,
  authority: string | null,
  action: OperationAction,
): Promise<string | null> {
  const standing = await standingOf(tx, authority);
  return standing ? lostBecause(standing, operationPermission(action)) : null;
}

/**
 * Pauses a running (or canary-stopped) operation whose authority was lost; the caller holds the
 * operation's row lock. Returns its decision-log entry, for the caller to append last.
 */
export async function pauseForLostAuthority(
  tx: Tx,
  operationId: string,
  fromState: string,
  because: string,
): Promise<DecisionEntry> {
  const reason = `paused: ${because}`;
  await tx.$executeRaw`
    UPDATE bulk_operations SET state = 'paused', pause_reason = ${reason}, version = version + 1, updated_at = now()
     WHERE id = ${operationId}::uuid`;
  return {
    actor: OPERATIONS_ACTOR,
    action: "operation.paused",
    reason,
    details: { operationId, fromState, rule: "authority-lost" },
  };
}

/** Why the switch's authority may no longer replay records automatically, or null. */
export async function switchAuthorityLost(tx: Tx, authority: string | null): Promise<string | null> {
  const standing = await standingOf(tx, authority);
  return standing ? lostBecause(standing, AUTO_REPLAY_PERMISSION) : null;
}

/** Pauses one kind's automatic replay; returns its decision-log entry, to append last. */
export async function pauseSwitch(tx: Tx, kind: string, because: string): Promise<DecisionEntry> {
  const reason = `paused: ${because}`;
  await tx.$executeRaw`UPDATE kind_settings SET paused_reason = ${reason} WHERE kind = ${kind}`;
  return {
    actor: AUTO_REPLAY_SWITCH_ACTOR,
    action: "kind.auto-replay-paused",
    reason,
    details: { kind, rule: "authority-lost" },
  };
}

/** What a change of a person or token paused. */
export interface PausedByChange {
  operations: string[];
  kinds: string[];
}

/**
 * After a change to the person or token `authority` (disabled, role changed, revoked) inside
 * transaction `tx`: pauses each running or canary-stopped operation and each switched-on
 * automatic replay that acts on its authority and no longer may, and appends their entries
 * (after the caller's own entry: call it last). `cause` is appended to each reason: who changed
 * what, and why.
 */
export async function pauseWhatLostAuthority(tx: Tx, authority: string, cause: string): Promise<PausedByChange> {
  const paused: PausedByChange = { operations: [], kinds: [] };
  const standing = await standingOf(tx, authority);
  if (!standing) return paused;
  const entries: DecisionEntry[] = [];
  // Operation rows before the log's head, the order the dispatcher takes them in.
  const operations = await tx.$queryRaw<{ id: string; action: OperationAction; state: string }[]>`
    SELECT id::text AS id, action::text AS action, state::text AS state FROM bulk_operations
     WHERE authority_actor = ${authority} AND state IN ('running', 'awaiting-continue')
     ORDER BY seq FOR UPDATE`;
  for (const op of operations) {
    const because = lostBecause(standing, operationPermission(op.action));
    if (!because) continue;
    entries.push(await pauseForLostAuthority(tx, op.id, op.state, `${because} (${cause})`));
    paused.operations.push(op.id);
  }
  const kinds = await tx.$queryRaw<{ kind: string }[]>`
    SELECT kind FROM kind_settings
     WHERE authority_actor = ${authority} AND auto_replay_ready AND paused_reason IS NULL
     ORDER BY kind FOR UPDATE`;
  const switchBecause = lostBecause(standing, AUTO_REPLAY_PERMISSION);
  if (switchBecause) {
    for (const { kind } of kinds) {
      entries.push(await pauseSwitch(tx, kind, `${switchBecause} (${cause})`));
      paused.kinds.push(kind);
    }
  }
  for (const entry of entries) await appendDecision(tx, entry);
  return paused;
}
