/**
 * /api/v1/domains and /api/v1/people/{id}/grants (ADR 0029): admins only, bad input a 4xx naming
 * the field with nothing changed, every change in the decision log under the admin's name.
 */
import { describe, expect, it } from "vitest";
import { DELETE as removeDomain, PUT as updateDomain } from "@/app/api/v1/domains/[name]/route";
import { GET as listDomains, POST as createDomain } from "@/app/api/v1/domains/route";
import { DELETE as revokeGrant, GET as listGrants, POST as addGrant } from "@/app/api/v1/people/[userId]/grants/route";
import { GET as listPeople } from "@/app/api/v1/people/route";
import { POST as issueToken } from "@/app/api/v1/tokens/route";
import { createPerson, signedIn } from "../support/auth";
import { setupTestDatabase, withClient } from "../support/database";
import { call } from "../support/http";
import { newTag } from "../support/operations";

const database = setupTestDatabase();
const sql = <T = any>(text: string, params: unknown[] = []) =>
  withClient(database.current.url, async (c) => (await c.query(text, params)).rows as T[]);
const asCookie = (cookie: string) => ({ cookie, origin: "http://localhost" });
const logCount = async () => (await sql<{ n: number }>(`SELECT count(*)::int AS n FROM decision_log`))[0]!.n;

describe("/api/v1/domains", () => {
  it("an admin adds, lists, changes and removes a domain; each change logged under their name", async () => {
    const admin = await signedIn("admin");
    const tag = newTag();
    const name = `pay-${tag}`;
    const created = await call(createDomain, {
      headers: asCookie(admin.cookie),
      body: { name, kinds: [`card-${tag}.charge`, `inv-${tag}.*`], description: "money", reason: "new team" },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.domain).toMatchObject({
      name,
      kinds: [`card-${tag}.charge`, `inv-${tag}.*`],
      description: "money",
      grants: [],
      tokens: [],
      createdBy: `user:${admin.email}`,
    });

    const taken = await call(createDomain, {
      headers: asCookie(admin.cookie),
      body: { name: `other-${tag}`, kinds: [`inv-${tag}.*`], reason: "x" },
    });
    expect(taken.status).toBe(409);
    expect(taken.body.error).toMatchObject({ code: "pattern-taken" });
    expect(taken.body.error.message).toContain(`inv-${tag}.* belongs to domain ${name}`);

    const listed = await call(listDomains, { headers: asCookie(admin.cookie) });
    expect(listed.body.domains.find((d: any) => d.name === name)).toMatchObject({ name });

    const changed = await call(updateDomain, {
      headers: asCookie(admin.cookie),
      params: { name },
      body: { kinds: [`card-${tag}.*`], reason: "all of cards" },
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body).toMatchObject({
      domain: { kinds: [`card-${tag}.*`] },
      kindsBefore: [`card-${tag}.charge`, `inv-${tag}.*`],
    });
    const same = await call(updateDomain, {
      headers: asCookie(admin.cookie),
      params: { name },
      body: { kinds: [`card-${tag}.*`], reason: "again" },
    });
    expect(same.status).toBe(409);

    const removed = await call(removeDomain, {
      headers: asCookie(admin.cookie),
      params: { name },
      body: { reason: "merged" },
    });
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    const entries = await sql(
      `SELECT actor, actor_role, action, reason FROM decision_log WHERE details->>'domain' = $1 ORDER BY seq`,
      [name],
    );
    expect(entries).toEqual([
      { actor: `user:${admin.email}`, actor_role: "admin", action: "domain.created", reason: "new team" },
      { actor: `user:${admin.email}`, actor_role: "admin", action: "domain.kinds-changed", reason: "all of cards" },
      { actor: `user:${admin.email}`, actor_role: "admin", action: "domain.removed", reason: "merged" },
    ]);
    const gone = await call(removeDomain, { headers: asCookie(admin.cookie), params: { name }, body: { reason: "x" } });
    expect(gone.status).toBe(404);
  });

  it("bad input is a 400 naming the field, and changes nothing", async () => {
    const admin = await signedIn("admin");
    const before = await logCount();
    const cases: [unknown, string][] = [
      [{ name: "Pay", kinds: ["a.b"], reason: "x" }, "name"],
      [{ name: `ok-${newTag()}`, kinds: ["a.b", "a..b"], reason: "x" }, "kinds.1"],
      [{ name: `ok-${newTag()}`, kinds: [], reason: "x" }, "kinds"],
      [{ name: `ok-${newTag()}`, kinds: ["a.b"], reason: " " }, "reason"],
      [{ name: `ok-${newTag()}`, kinds: "a.b", reason: "x" }, "kinds"],
    ];
    for (const [body, field] of cases) {
      const res = await call(createDomain, { headers: asCookie(admin.cookie), body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.issues[0].path).toBe(field);
    }
    const empty = await call(updateDomain, {
      headers: asCookie(admin.cookie),
      params: { name: "whatever" },
      body: { reason: "x" },
    });
    expect(empty.status).toBe(400);
    expect(empty.body.error.issues[0].path).toBe("kinds");
    expect(await logCount()).toBe(before);
  });

  it("anyone but an admin is refused with 403", async () => {
    const owner = await signedIn("owner");
    const res = await call(createDomain, {
      headers: asCookie(owner.cookie),
      body: { name: `x-${newTag()}`, kinds: ["a.b"], reason: "x" },
    });
    expect(res.status).toBe(403);
    expect((await call(listDomains, { headers: asCookie(owner.cookie) })).status).toBe(403);
  });
});

describe("/api/v1/people/{userId}/grants", () => {
  it("grant owner in a domain, list, revoke: shown on the person, logged, 4xx for the wrong ones", async () => {
    const admin = await signedIn("admin");
    const tag = newTag();
    const domain = `pay-${tag}`;
    await call(createDomain, {
      headers: asCookie(admin.cookie),
      body: { name: domain, kinds: [`card-${tag}.*`], reason: "x" },
    });
    const person = await createPerson("support");
    const granted = await call(addGrant, {
      headers: asCookie(admin.cookie),
      params: { userId: person.id },
      body: { role: "owner", domain, reason: "owns payments now" },
    });
    expect(granted.status, JSON.stringify(granted.body)).toBe(201);
    expect(granted.body.person.grants).toEqual([
      { role: "support", domain: null, source: "manual" },
      { role: "owner", domain, source: "manual" },
    ]);
    expect(granted.body.headline).toEqual({ from: "support", to: "support" });

    const again = await call(addGrant, {
      headers: asCookie(admin.cookie),
      params: { userId: person.id },
      body: { role: "owner", domain, reason: "x" },
    });
    expect(again.status).toBe(409);
    const noDomain = await call(addGrant, {
      headers: asCookie(admin.cookie),
      params: { userId: person.id },
      body: { role: "owner", domain: `none-${tag}`, reason: "x" },
    });
    expect(noDomain.status).toBe(404);
    const badRole = await call(addGrant, {
      headers: asCookie(admin.cookie),
      params: { userId: person.id },
      body: { role: "consumer", domain, reason: "x" },
    });
    expect(badRole.status).toBe(400);
    expect(badRole.body.error.issues[0].path).toBe("role");
    const own = await call(addGrant, {
      headers: asCookie(admin.cookie),
      params: { userId: admin.id },
      body: { role: "owner", domain, reason: "x" },
    });
    expect(own.status).toBe(422);

    const listed = await call(listGrants, { headers: asCookie(admin.cookie), params: { userId: person.id } });
    expect(listed.body).toEqual({ role: "support", grants: granted.body.person.grants });
    const people = await call(listPeople, { headers: asCookie(admin.cookie) });
    expect(people.body.people.find((p: any) => p.id === person.id).grants).toHaveLength(2);

    // The domain is in use now.
    const inUse = await call(removeDomain, {
      headers: asCookie(admin.cookie),
      params: { name: domain },
      body: { reason: "x" },
    });
    expect(inUse.status).toBe(409);
    expect(inUse.body.error.message).toContain(`${person.email} (owner)`);

    const revoked = await call(revokeGrant, {
      headers: asCookie(admin.cookie),
      params: { userId: person.id },
      body: { role: "support", reason: "payments only from now" },
    });
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    expect(revoked.body.headline).toEqual({ from: "support", to: "owner" });
    expect(revoked.body.person).toMatchObject({ role: "owner", grants: [{ role: "owner", domain, source: "manual" }] });
    const entries = await sql(
      `SELECT actor, action, reason, details->>'domain' AS domain FROM decision_log
        WHERE action IN ('user.granted', 'user.revoked') AND details->>'userId' = $1 ORDER BY seq`,
      [person.id],
    );
    expect(entries).toEqual([
      { actor: `user:${admin.email}`, action: "user.granted", reason: "owns payments now", domain },
      { actor: `user:${admin.email}`, action: "user.revoked", reason: "payments only from now", domain: null },
    ]);
    const missing = await call(listGrants, { headers: asCookie(admin.cookie), params: { userId: "nope" } });
    expect(missing.status).toBe(404);
  });

  it("a token issued with a domain is scoped to it; an unknown domain is a 404", async () => {
    const admin = await signedIn("admin");
    const tag = newTag();
    const domain = `pay-${tag}`;
    await call(createDomain, {
      headers: asCookie(admin.cookie),
      body: { name: domain, kinds: [`card-${tag}.*`], reason: "x" },
    });
    const issued = await call(issueToken, {
      headers: asCookie(admin.cookie),
      body: { name: `w-${tag}`, role: "consumer", expiresInDays: null, domain, reason: "payments worker" },
    });
    expect(issued.status, JSON.stringify(issued.body)).toBe(201);
    expect(issued.body.token.domain).toBe(domain);
    const unknown = await call(issueToken, {
      headers: asCookie(admin.cookie),
      body: { name: `v-${tag}`, role: "consumer", expiresInDays: null, domain: `none-${tag}`, reason: "x" },
    });
    expect(unknown.status).toBe(404);
    const bad = await call(issueToken, {
      headers: asCookie(admin.cookie),
      body: { name: `u-${tag}`, role: "consumer", expiresInDays: null, domain: "Bad Name", reason: "x" },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.issues[0].path).toBe("domain");

    // Admin is a role of every domain: given in one it is a 422 naming domain, and nothing is
    // written. An admin "of payments" would manage every domain's people and grants: refused everywhere.
    const person = await createPerson("support");
    const granted = await call(addGrant, {
      headers: asCookie(admin.cookie),
      params: { userId: person.id },
      body: { role: "admin", domain, reason: "x" },
    });
    expect(granted.status).toBe(422);
    expect(granted.body.error.issues[0].path).toBe("domain");
    const listed = await call(listGrants, { headers: asCookie(admin.cookie), params: { userId: person.id } });
    expect(listed.body.grants).toEqual([expect.objectContaining({ role: "support", domain: null })]);
    const scopedAdmin = await call(issueToken, {
      headers: asCookie(admin.cookie),
      body: { name: `adm-${tag}`, role: "admin", expiresInDays: null, domain, reason: "x" },
    });
    expect(scopedAdmin.status).toBe(422);
    expect(scopedAdmin.body.error.issues[0].path).toBe("domain");
  });
});
