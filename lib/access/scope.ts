import type { Permission } from "./roles";
import { db } from "@/lib/db/client";
import { Prisma } from "@/lib/generated/prisma/client";
import { canIn, domainsWhere } from "./rules";
import type { Grant } from "./grant";

/*
 * What part of the queue a caller may see (docs/decisions/0030-domain-enforcement.md). A global
 * grant sees every record; a scoped one sees the records whose kind belongs to one of its
 * domains. Lists and counts do not call domain_of_kind per row: the scope is expanded once per
 * request to the kinds it covers (the distinct kinds of review_group_counts, a few rows however
 * many records there are), and the queries filter `kind = ANY($kinds)`, which the (kind, seq)
 * index and the counts tables answer.
 */

export type RecordScope =
  | { all: true }
  | {
      all: false;
      /** The domains the caller reaches (possibly none). */
      domains: string[];
      /** The kinds of those domains that have records now. */
      kinds: string[];
    };

export const ALL_RECORDS: RecordScope = { all: true };

/** The records `permission` reaches for the holder of `grants`. */
export async function recordScope(grants: readonly Grant[], permission: Permission = "reviews.read") {
  const where = domainsWhere(grants, permission);
  if (where === "all") return ALL_RECORDS;
  return { all: false, domains: where, kinds: await kindsOfDomains(where) } satisfies RecordScope;
}

/** The kinds with records (or counts) whose domain is one of `domains`: one call per distinct kind. */
export async function kindsOfDomains(domains: readonly string[]): Promise<string[]> {
  if (domains.length === 0) return [];
  const rows = await db().$queryRaw<{ kind: string }[]>`
    SELECT k.kind FROM (SELECT DISTINCT kind FROM review_group_counts WHERE kind IS NOT NULL) k
     WHERE public.domain_of_kind(k.kind) = ANY(${[...domains]}::text[])
     ORDER BY 1`;
  return rows.map((r) => r.kind);
}

/**
 * The scope as a condition on a table with a `kind` column (`alias.kind`): empty for every
 * record, else AND-ed `kind = ANY(...)` (a caller without domains gets `FALSE`).
 */
export function scopeCondition(scope: RecordScope, alias?: Prisma.Sql): Prisma.Sql {
  if (scope.all) return Prisma.empty;
  const column = alias ? Prisma.sql`${alias}.kind` : Prisma.sql`kind`;
  return Prisma.sql`AND ${column} = ANY(${scope.kinds}::text[])`;
}

/** The domain of one record's kind (domain_kinds' rule), or null: for a record's own page and actions. */
export async function domainOfKind(kind: string | null): Promise<string | null> {
  if (!kind) return null;
  const rows = await db().$queryRaw<{ domain: string | null }[]>`SELECT public.domain_of_kind(${kind}) AS domain`;
  return rows[0]?.domain ?? null;
}

/** May the holder of `grants` see a record of `domain`? Otherwise it is answered as unknown (404). */
export function mayRead(grants: readonly Grant[], domain: string | null): boolean {
  return canIn(grants, "reviews.read", domain);
}

/**
 * How a bulk operation's `domains` column spells records in no domain: never a domain's name
 * (names are lower-case letters, digits and dashes), so `domains <@ <theirs>` is false for it.
 */
export const NO_DOMAIN = "(none)";

/** A domain of an operation's `domains` column as canIn reads it (null: no domain). */
export function domainOfColumn(domain: string): string | null {
  return domain === NO_DOMAIN ? null : domain;
}

/**
 * Who may read an operation (ADR 0030): those who read every record, or whose readable domains
 * hold every domain of its selection. Empty for every operation, else an AND-ed condition on
 * `bulk_operations.domains`.
 */
export function operationScopeCondition(grants: readonly Grant[]): Prisma.Sql {
  const where = domainsWhere(grants, "operations.read");
  if (where === "all") return Prisma.empty;
  return Prisma.sql`AND domains <@ ${where}::text[]`;
}

/** The domains of `domains` (an operation's column) where `grants` do not allow `permission`. */
export function domainsRefused(grants: readonly Grant[], permission: Permission, domains: readonly string[]): string[] {
  return domains.filter((d) => !canIn(grants, permission, domainOfColumn(d)));
}
