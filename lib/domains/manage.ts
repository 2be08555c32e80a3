import { type ChangeActor } from "@/lib/access";
import { type Role } from "@/lib/access/client";
import { appendDecision } from "@/lib/audit";
import { db } from "@/lib/db/client";
import { conflict, notFound } from "@/lib/domain/refusal";
import { Prisma } from "@/lib/generated/prisma/client";
import type { DomainView } from "./domain-view";
import { invalidateDomainPatterns } from "@/lib/access";

// Creating, changing and removing domains (docs/decisions/0029-domains.md). Each change is one
// transaction with its decision-log entry; a refusal (lib/domain/refusal.ts) writes nothing.
// Changes to patterns take one transaction-scoped lock, so two admins cannot both take a pattern.

type Tx = Prisma.TransactionClient;

function lockPatterns(tx: Tx): Promise<unknown> {
  return tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('domain_kinds'))`;
}

async function lockDomain(tx: Tx, name: string): Promise<{ description: string | null; kinds: string[] }> {
  const rows = await tx.$queryRaw<{ description: string | null }[]>`
    SELECT description FROM domains WHERE name = ${name} FOR UPDATE`;
  if (!rows[0]) throw notFound(`no domain ${name}`);
  const kinds = await tx.$queryRaw<{ pattern: string }[]>`
    SELECT pattern FROM domain_kinds WHERE domain = ${name} ORDER BY pattern`;
  return { description: rows[0].description, kinds: kinds.map((k) => k.pattern) };
}

/** Refuses when another domain owns one of `kinds`, naming the pattern and its domain. */
async function refuseTakenPatterns(tx: Tx, kinds: string[], domain: string): Promise<void> {
  const taken = await tx.$queryRaw<{ pattern: string; domain: string }[]>`
    SELECT pattern, domain FROM domain_kinds WHERE pattern = ANY(${kinds}::text[]) AND domain <> ${domain}
     ORDER BY pattern`;
  if (taken.length === 0) return;
  const list = taken.map((t) => `${t.pattern} belongs to domain ${t.domain}`).join(", ");
  throw conflict("pattern-taken", `${list}; a pattern belongs to one domain (change that domain's kinds first)`, {
    context: { taken },
  });
}

async function insertPatterns(tx: Tx, kinds: string[], domain: string): Promise<void> {
  await tx.$executeRaw`
    INSERT INTO domain_kinds (pattern, domain) SELECT unnest(${kinds}::text[]), ${domain}`;
}

export interface NewDomain {
  name: string;
  kinds: string[];
  description?: string | null;
}

export async function createDomain(input: NewDomain, reason: string, actor: ChangeActor): Promise<void> {
  const kinds = [...input.kinds].sort();
  const description = input.description || null;
  await db().$transaction(async (tx) => {
    await lockPatterns(tx);
    const exists = await tx.$queryRaw<unknown[]>`SELECT 1 FROM domains WHERE name = ${input.name}`;
    if (exists.length > 0) throw conflict("domain-exists", `a domain named ${input.name} exists`);
    await refuseTakenPatterns(tx, kinds, input.name);
    await tx.$executeRaw`
      INSERT INTO domains (name, description, created_by) VALUES (${input.name}, ${description}, ${actor.label})`;
    await insertPatterns(tx, kinds, input.name);
    await appendDecision(tx, {
      actor: actor.label,
      actorRole: actor.role,
      action: "domain.created",
      reason,
      details: { domain: input.name, kinds, description },
    });
  });
  invalidateDomainPatterns();
}

export interface DomainChange {
  kinds?: string[];
  description?: string | null;
}

/** What changed: the kinds before and after, and whether the description changed. */
export interface DomainChanged {
  from: string[];
  to: string[];
  descriptionChanged: boolean;
}

/**
 * Replaces a domain's patterns and/or its description. Records already held move with their
 * kinds at once: a record's domain is never stored, always derived from its kind.
 */
export async function updateDomain(
  name: string,
  change: DomainChange,
  reason: string,
  actor: ChangeActor,
): Promise<DomainChanged> {
  const result = await db().$transaction(async (tx) => {
    await lockPatterns(tx);
    const before = await lockDomain(tx, name);
    const to = change.kinds ? [...change.kinds].sort() : before.kinds;
    const kindsChanged = to.join("\n") !== before.kinds.join("\n");
    if (kindsChanged) {
      await refuseTakenPatterns(tx, to, name);
      await tx.$executeRaw`DELETE FROM domain_kinds WHERE domain = ${name}`;
      await insertPatterns(tx, to, name);
      await appendDecision(tx, {
        actor: actor.label,
        actorRole: actor.role,
        action: "domain.kinds-changed",
        reason,
        details: { domain: name, from: before.kinds, to },
      });
    }
    const description = change.description === undefined ? before.description : change.description || null;
    const descriptionChanged = description !== before.description;
    if (descriptionChanged) {
      await tx.$executeRaw`UPDATE domains SET description = ${description} WHERE name = ${name}`;
      await appendDecision(tx, {
        actor: actor.label,
        actorRole: actor.role,
        action: "domain.description-changed",
        reason,
        details: { domain: name, from: before.description, to: description },
      });
    }
    if (!kindsChanged && !descriptionChanged) {
      throw conflict("no-change", `domain ${name} already has these kinds and this description`);
    }
    return { from: before.kinds, to, descriptionChanged };
  });
  invalidateDomainPatterns();
  return result;
}

/**
 * Removes a domain and its patterns (their kinds are then in no domain: global roles only).
 * Refused while a person holds a role in it or a working token is scoped to it, naming them:
 * removing it would silently take their access away. Revoked and expired tokens can never work
 * again; their `domain` is cleared (the decision log keeps what each was issued for).
 */
export async function removeDomain(name: string, reason: string, actor: ChangeActor): Promise<{ kinds: string[] }> {
  const result = await db().$transaction(async (tx) => {
    await lockPatterns(tx);
    const before = await lockDomain(tx, name);
    const grants = await tx.$queryRaw<{ email: string; role: string }[]>`
      SELECT u.email, g.role::text AS role FROM role_grants g JOIN users u ON u.id = g.user_id
       WHERE g.domain = ${name} ORDER BY u.email, g.role`;
    const tokens = await tx.$queryRaw<{ name: string }[]>`
      SELECT name FROM api_tokens
       WHERE domain = ${name} AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())
       ORDER BY name`;
    if (grants.length > 0 || tokens.length > 0) {
      const held = [...grants.map((g) => `${g.email} (${g.role})`), ...tokens.map((t) => `token ${t.name}`)].join(", ");
      throw conflict("domain-in-use", `domain ${name} is still granted to ${held}; revoke those first`, {
        context: { grants, tokens: tokens.map((t) => t.name) },
      });
    }
    const cleared = await tx.$executeRaw`UPDATE api_tokens SET domain = NULL WHERE domain = ${name}`;
    await tx.$executeRaw`DELETE FROM domains WHERE name = ${name}`;
    await appendDecision(tx, {
      actor: actor.label,
      actorRole: actor.role,
      action: "domain.removed",
      reason,
      details: { domain: name, kinds: before.kinds, description: before.description, unusableTokensCleared: cleared },
    });
    return { kinds: before.kinds };
  });
  invalidateDomainPatterns();
  return result;
}

interface DomainRow {
  name: string;
  description: string | null;
  createdBy: string;
  createdAt: Date;
  kinds: string[];
  grants: DomainView["grants"];
  tokens: { id: string; name: string; role: Role }[];
}

async function readDomains(where: Prisma.Sql): Promise<DomainView[]> {
  const rows = await db().$queryRaw<DomainRow[]>`
    SELECT d.name, d.description, d.created_by AS "createdBy", d.created_at AS "createdAt",
           COALESCE((SELECT array_agg(k.pattern ORDER BY k.pattern) FROM domain_kinds k WHERE k.domain = d.name),
                    '{}') AS kinds,
           COALESCE((SELECT jsonb_agg(jsonb_build_object('userId', u.id::text, 'email', u.email,
                                                         'role', g.role::text, 'source', g.source)
                                      ORDER BY u.email, g.role, g.source)
                       FROM role_grants g JOIN users u ON u.id = g.user_id WHERE g.domain = d.name),
                    '[]') AS grants,
           COALESCE((SELECT jsonb_agg(jsonb_build_object('id', t.id::text, 'name', t.name, 'role', t.role::text)
                                      ORDER BY t.name)
                       FROM api_tokens t
                      WHERE t.domain = d.name AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > now())),
                    '[]') AS tokens
      FROM domains d ${where}
     ORDER BY d.name`;
  return rows.map((r) => ({
    name: r.name,
    description: r.description,
    kinds: r.kinds,
    grants: r.grants,
    tokens: r.tokens,
    createdBy: r.createdBy,
    createdAt: r.createdAt.toISOString(),
  }));
}

/** Every domain, by name, with its kinds, who holds a role in it and its working tokens. */
export function listDomains(): Promise<DomainView[]> {
  return readDomains(Prisma.empty);
}

export async function getDomainView(name: string): Promise<DomainView | null> {
  return (await readDomains(Prisma.sql`WHERE d.name = ${name}`))[0] ?? null;
}

/** Refuses (404) a domain that does not exist; FOR SHARE: it cannot be removed before the caller commits. */
export async function requireDomain(tx: Tx, name: string): Promise<void> {
  const rows = await tx.$queryRaw<unknown[]>`SELECT 1 FROM domains WHERE name = ${name} FOR SHARE`;
  if (rows.length === 0) throw notFound(`no domain ${name}`);
}
