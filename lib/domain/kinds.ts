/*
 * Which domain a kind belongs to. The same rule as the SQL function domain_of_kind (migration
 * 20261202010000_domains): a pattern is a kind exactly or a prefix ending in `.*`; of the
 * patterns that match, an exact one wins, then the longest prefix. No server imports here.
 */

export interface DomainPattern {
  pattern: string;
  domain: string;
}

/** A kind pattern: `card.charge` or `invoice.*` (dot-separated words of letters, digits, `_:-`). */
export const KIND_PATTERN = /^[A-Za-z0-9_:-]+(\.[A-Za-z0-9_:-]+)*(\.\*)?$/;

export function patternMatches(pattern: string, kind: string): boolean {
  if (pattern === kind) return true;
  return pattern.endsWith(".*") && kind.startsWith(pattern.slice(0, -1));
}

export function matchDomain(kind: string | null | undefined, patterns: readonly DomainPattern[]): string | null {
  if (!kind) return null;
  let best: DomainPattern | null = null;
  for (const p of patterns) {
    if (!patternMatches(p.pattern, kind)) continue;
    if (p.pattern === kind) return p.domain;
    if (!best || p.pattern.length > best.pattern.length) best = p;
  }
  return best?.domain ?? null;
}
