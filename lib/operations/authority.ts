import { type Permission, type Grant } from "@/lib/access/client";
import { type Standing, standingOf, canAnywhere, domainOfColumn, domainsRefused, NO_DOMAIN } from "@/lib/access";
import { findLostRequests, withdrawRequest } from "@/lib/approvals";
import { appendDecision, type DecisionEntry } from "@/lib/audit";
import type { Prisma } from "@/lib/generated/prisma/client";
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

/**
 * Why `standing` no longer carries `permission`, or null when it still does: anywhere, and in
 * each of `domains` (an operation's frozen domains, a switch's kind's domain; NO_DOMAIN for none).
 */
function lostBecause(standing: Standing, permission: Permission, domains: readonly string[] = []): string | null {
  if (standing.gone) return standing.gone;
  const { label, role, grants = [] } = standing.actor;
  if (!canAnywhere(grants, permission)) {
    return `${label} now has the role ${role}, which may not ${permission}`;
  }
  const refused = domainsRefused(grants, permission, domains);
  if (refused.length > 0) {
    const named = refused.map((d) => (domainOfColumn(d) === null ? "records in no domain" : `domain ${d}`));
    return `${label} may no longer ${permission} in ${named.join(", ")}`;
  }
  return null;
}

/** What an operation's authority stands on now: why it was lost (or null), and its grants. */
export interface OperationAuthority {
  lost: string | null;
  /** The authority's grants now; null when it is not checked (a legacy or system authority). */
  grants: Grant[] | null;
}

/**
 * Whether the operation's authority may still dispatch it, in every domain of its selection, and
 * its grants, which the dispatcher acts with (each record is checked against its own domain too).
 * The dispatcher asks before every step (lib/actions/dispatcher.ts): that also catches a token
 * that merely expired.
 */
export async function operationAuthority(
  tx: Tx,
  authority: string | null,
  action: OperationAction,
  domains: readonly string[] = [],
): Promise<OperationAuthority> {
  const standing = await standingOf(tx, authority);
  if (!standing) return { lost: null, grants: null };
  return { lost: lostBecause(standing, operationPermission(action), domains), grants: standing.actor.grants ?? [] };
}

/** Why the operation's authority may no longer dispatch it, or null (operationAuthority's `lost`). */
export async function operationAuthorityLost(
  tx: Tx,
  authority: string | null,
  action: OperationAction,
  domains: readonly string[] = [],
): Promise<string | null> {
  return (await operationAuthority(tx, authority, action, domains)).lost;
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

/** The domain of a switch's kind, as an operation's `domains` column spells it. */
async function domainOfSwitch(tx: Tx, kind: string): Promise<string> {
  const rows = await tx.$queryRaw<{ domain: string }[]>`
    SELECT COALESCE(public.domain_of_kind(${kind}), ${NO_DOMAIN}) AS domain`;
  return rows[0]?.domain ?? NO_DOMAIN;
}

/**
 * Why the switch's authority may no longer replay records automatically, or null. With `kind`,
 * also in that kind's domain (ADR 0030).
 */
export async function switchAuthorityLost(tx: Tx, authority: string | null, kind?: string): Promise<string | null> {
  const standing = await standingOf(tx, authority);
  if (!standing) return null;
  const domains = kind === undefined ? [] : [await domainOfSwitch(tx, kind)];
  return lostBecause(standing, AUTO_REPLAY_PERMISSION, domains);
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
  // Their pending approval requests they may no longer ask for are withdrawn too (locked first,
  // like an approval locks its request before anything else; withdrawn after the entries above).
  const lostRequests = await findLostRequests(tx, standing, cause);
  const entries: DecisionEntry[] = [];
  // Operation rows before the log's head, the order the dispatcher takes them in.
  const operations = await tx.$queryRaw<{ id: string; action: OperationAction; state: string; domains: string[] }[]>`
    SELECT id::text AS id, action::text AS action, state::text AS state, domains FROM bulk_operations
     WHERE authority_actor = ${authority} AND state IN ('running', 'awaiting-continue')
     ORDER BY seq FOR UPDATE`;
  for (const op of operations) {
    const because = lostBecause(standing, operationPermission(op.action), op.domains);
    if (!because) continue;
    entries.push(await pauseForLostAuthority(tx, op.id, op.state, `${because} (${cause})`));
    paused.operations.push(op.id);
  }
  const kinds = await tx.$queryRaw<{ kind: string }[]>`
    SELECT kind FROM kind_settings
     WHERE authority_actor = ${authority} AND auto_replay_ready AND paused_reason IS NULL
     ORDER BY kind FOR UPDATE`;
  for (const { kind } of kinds) {
    const switchBecause = lostBecause(standing, AUTO_REPLAY_PERMISSION, [await domainOfSwitch(tx, kind)]);
    if (!switchBecause) continue;
    entries.push(await pauseSwitch(tx, kind, `${switchBecause} (${cause})`));
    paused.kinds.push(kind);
  }
  for (const entry of entries) await appendDecision(tx, entry);
  for (const lost of lostRequests) await withdrawRequest(tx, lost.id, lost.because);
  return paused;
}
