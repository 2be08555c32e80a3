import { db } from "@/lib/db/client";
import { type DomainPattern, matchDomain } from "@/lib/domain/kinds";

/*
 * The domain_kinds table held in memory for the intake hot path (ADR 0029): a scoped token's
 * report is checked against it without a query. Read again at most every TTL; a change made by
 * this process (lib/domains/manage.ts) drops it at once, a change made by another instance
 * reaches this one within the TTL. Global tokens never ask (lib/access/report-scope.ts).
 */

export const DOMAIN_PATTERNS_TTL_MS = 5_000;

interface Cached {
  patterns: DomainPattern[];
  readAt: number;
}

// On globalThis: Next may load this module twice, and both copies must share one cache.
const shared = globalThis as unknown as { reviewConsoleDomainPatterns?: Cached | null };

export async function domainPatterns(now = Date.now()): Promise<DomainPattern[]> {
  const cached = shared.reviewConsoleDomainPatterns;
  if (cached && now - cached.readAt < DOMAIN_PATTERNS_TTL_MS) return cached.patterns;
  const patterns = await db().$queryRaw<DomainPattern[]>`SELECT pattern, domain FROM domain_kinds`;
  shared.reviewConsoleDomainPatterns = { patterns, readAt: now };
  return patterns;
}

/** The domain of `kind` (null: none), by the cached patterns. */
export async function domainOfKind(kind: string | null): Promise<string | null> {
  if (!kind) return null;
  return matchDomain(kind, await domainPatterns());
}

/** After a change to domain_kinds in this process: the next check reads the table. */
export function invalidateDomainPatterns(): void {
  shared.reviewConsoleDomainPatterns = null;
}
