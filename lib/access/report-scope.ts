import { readEnvelopeKeys } from "@review-console/contract";
import { grantsOf, type Actor } from "./actor";
import { Refusal } from "@/lib/domain/refusal";
import { canIn, domainsWhere } from "./rules";
import { domainOfKind } from "@/lib/access/domain-patterns";

/*
 * Reports of a scoped token (ADR 0029): a token scoped to `payments` reports only kinds of
 * payments. Refused (403 naming `message.kind`, an authorization.refused entry like any other):
 * a kind of another domain or of no domain. Accepted: a message with no usable kind (missing,
 * empty, not a string) — an invalid-contract message cannot be attributed to a domain, and
 * refusing it would strand it at the consumer; its record is then in no domain, seen by global
 * roles only. On the intake hot path: a global reporter returns before anything is read, a
 * scoped one reads the in-memory pattern cache (lib/access/domain-patterns.ts), never a query per
 * report.
 */

/** The refusal of reporting `message` as `actor`, or null when it may. */
export async function reportDomainRefusal(actor: Actor, message: unknown): Promise<Refusal | null> {
  const grants = grantsOf(actor);
  if (domainsWhere(grants, "reviews.report") === "all") return null;
  const kind = readEnvelopeKeys(message).kind;
  if (kind === null) return null;
  const domain = await domainOfKind(kind);
  if (canIn(grants, "reviews.report", domain)) return null;
  const allowed = domainsWhere(grants, "reviews.report");
  const mayReport = allowed === "all" || allowed.length === 0 ? "no domain" : `domain ${allowed.join(", ")}`;
  const problem = `kind ${kind} is in ${domain === null ? "no domain" : `domain ${domain}`}; this token reports in ${mayReport} only`;
  return new Refusal("forbidden", "outside-domain", `message.kind: ${problem}`, {
    issues: [{ path: "message.kind", message: problem }],
    authorization: {
      reason: "a report of a kind outside the token's domain",
      details: { permission: "reviews.report", rule: "domain", kind, domain },
    },
  });
}
