import { type Actor, canIn, domainsWhere, type Grant, grantsOf, type Permission } from "@/lib/access";
import { conflict, Refusal } from "@/lib/domain/refusal";
import type { Prisma } from "@/lib/generated/prisma/client";

/*
 * Records of different domains that meet (docs/decisions/0038-keys-across-domains.md): a report
 * whose message id lands on another domain's active record, and a key (effectKey, sequenceKey)
 * named by records of different domains. A scoped identity changes nothing another domain's
 * record depends on: its report is refused (403 naming `message.id`; 409 naming the key and the
 * other domain), and so is its action on a record whose keys another domain's records or journal
 * entry share. A global identity is never asked: it reaches every domain anyway.
 */

/** The domains `actor` reports into, or null when every domain (a global reporter: nothing is checked). */
export function reporterDomains(actor: Actor): string[] | null {
  const where = domainsWhere(grantsOf(actor), "reviews.report");
  return where === "all" ? null : where;
}

/** How a domain appears in a message: `domain billing`, or `no domain`. */
function domainLabel(domain: string | null): string {
  return domain === null ? "no domain" : `domain ${domain}`;
}

function reporterScope(domains: readonly string[]): string {
  return domains.length === 0 ? "no domain" : `domain ${domains.join(", ")}`;
}

/**
 * A report whose message id is that of an active record of a domain the reporter does not report
 * into: the record would be rewritten under the reporter's name. `domain` is that record's, when
 * the statement could still read it (undefined: it could not, the record being that fresh).
 */
export function landedOutsideDomain(domains: readonly string[], domain: string | null | undefined): Refusal {
  const where = domain === undefined ? "another domain" : domainLabel(domain);
  const problem = `an active record with this message id is in ${where}; this token reports in ${reporterScope(domains)} only`;
  return new Refusal("forbidden", "outside-domain", `message.id: ${problem}`, {
    issues: [{ path: "message.id", message: problem }],
    authorization: {
      reason: "a report landing on a record outside the token's domain",
      details: { permission: "reviews.report", rule: "domain", field: "message.id", domain: domain ?? null },
    },
  });
}

export type KeyField = "effectKey" | "sequenceKey";

/** A key that records (or the journal entry) of another domain already name. */
export function keyInOtherDomain(field: KeyField, key: string, domain: string | null, path: string): Refusal {
  const problem = `${field} ${key} is already used by ${domain === null ? "a record in no domain" : `domain ${domain}`}; a key is one effect or one order, never shared across domains`;
  return conflict("key-in-other-domain", `${path}: ${problem}`, { issues: [{ path, message: problem }] });
}

/** What a record's action reads of it here. */
interface KeyedRecord {
  id: string;
  kind: string | null;
  effectKey: string | null;
  sequenceKey: string | null;
}

/**
 * Refuses (409 `key-in-other-domain`) an action of the holder of `grants` on `record` when a
 * record whose domain they may not do `permission` in, or the journal entry of such a kind,
 * names the same effectKey or sequenceKey: the action's journal and sequence writes (and the
 * replays it lets run) would change that record's effect or order. Null for a global grant.
 */
export async function sharedKeyRefusal(
  tx: Prisma.TransactionClient,
  record: KeyedRecord,
  grants: readonly Grant[],
  permission: Permission,
): Promise<Refusal | null> {
  if (domainsWhere(grants, permission) === "all") return null;
  if (record.effectKey === null && record.sequenceKey === null) return null;
  // Distinct kinds first (a sequence key may hold many records, of few kinds), the record's own
  // kind left out (the actor may act in its domain). No kind at all is attributed to no one: an
  // invalid message, which any reporter may send and only a global identity acts on.
  const users = await tx.$queryRaw<{ field: KeyField; domain: string | null }[]>`
    SELECT k.field, public.domain_of_kind(k.kind) AS domain FROM (
      SELECT DISTINCT 'effectKey' AS field, o.kind FROM review_records o
       WHERE o.effect_key = ${record.effectKey} AND o.kind IS NOT NULL AND o.kind IS DISTINCT FROM ${record.kind}
      UNION
      SELECT DISTINCT 'sequenceKey', o.kind FROM review_records o
       WHERE o.sequence_key = ${record.sequenceKey} AND o.kind IS NOT NULL AND o.kind IS DISTINCT FROM ${record.kind}
      UNION
      SELECT 'effectKey', j.kind FROM effect_journal j
       WHERE j.effect_key = ${record.effectKey} AND j.kind IS NOT NULL AND j.kind IS DISTINCT FROM ${record.kind}
    ) k`;
  const other = users.find((u) => !canIn(grants, permission, u.domain));
  if (!other) return null;
  const key = other.field === "effectKey" ? record.effectKey! : record.sequenceKey!;
  return keyInOtherDomain(other.field, key, other.domain, other.field);
}
