/**
 * Single sign-on's grants against a real PostgreSQL (docs/decisions/0036-single-sign-on.md): the
 * mapping from OIDC_GROUP_GRANTS, the replacement of a person's oidc rows in role_grants (manual
 * ones untouched), the headline role, the decision-log entry, and Better Auth's gate refusing a
 * person whose groups give nothing.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  oidcValidateUserInfo,
  grantsForGroups,
  oidcConfig,
  parseGroupGrants,
  grantsWithKnownDomains,
  syncOidcGrants,
} from "@/lib/auth";
import { createUser } from "@/lib/users";
import { createPerson } from "../support/auth";
import { setupTestDatabase, withClient } from "../support/database";

const database = setupTestDatabase();

async function newDomain(): Promise<string> {
  const name = `d-${randomBytes(4).toString("hex")}`;
  await withClient(database.current.url, (c) =>
    c.query("INSERT INTO domains (name, created_by) VALUES ($1, 'system:test')", [name]),
  );
  return name;
}

async function rowsOf(userId: string) {
  return withClient(database.current.url, async (c) => {
    const grants = await c.query(
      "SELECT role::text AS role, domain, source FROM role_grants WHERE user_id = $1 ORDER BY source, role, domain",
      [userId],
    );
    const user = await c.query("SELECT role::text AS role FROM users WHERE id = $1", [userId]);
    const log = await c.query(
      "SELECT actor, details FROM decision_log WHERE action = 'user.grants-synced' AND details->>'userId' = $1 ORDER BY seq",
      [userId],
    );
    return { grants: grants.rows, role: user.rows[0].role as string, log: log.rows };
  });
}

describe("syncOidcGrants", () => {
  it("replaces the oidc grants with the mapped set and leaves manual grants alone", async () => {
    const payments = await newDomain();
    const cards = await newDomain();
    const person = await createPerson("support");
    const mapping = parseGroupGrants(`rc-payments-owners=owner@${payments},rc-card-auditors=auditor@${cards}`);

    const first = await syncOidcGrants(person.id, grantsForGroups(["rc-payments-owners"], mapping));
    expect(first.changed).toBe(true);
    let rows = await rowsOf(person.id);
    expect(rows.grants).toEqual([
      { role: "support", domain: null, source: "manual" },
      { role: "owner", domain: payments, source: "oidc" },
    ]);
    // support is still one of their grants' roles: the headline stays.
    expect(rows.role).toBe("support");

    await syncOidcGrants(person.id, grantsForGroups(["rc-card-auditors"], mapping));
    rows = await rowsOf(person.id);
    expect(rows.grants).toEqual([
      { role: "support", domain: null, source: "manual" },
      { role: "auditor", domain: cards, source: "oidc" },
    ]);
    expect(rows.log.map((l) => [l.actor, l.details.before, l.details.after])).toEqual([
      ["system:oidc", [], [{ role: "owner", domain: payments }]],
      ["system:oidc", [{ role: "owner", domain: payments }], [{ role: "auditor", domain: cards }]],
    ]);
    expect(rows.log[1].details.source).toBe("oidc");

    // The same groups again: nothing changes, nothing is logged.
    const same = await syncOidcGrants(person.id, grantsForGroups(["rc-card-auditors"], mapping));
    expect(same.changed).toBe(false);
    expect((await rowsOf(person.id)).log).toHaveLength(2);
  });

  it("moves the headline role to one of the person's grants when theirs is gone", async () => {
    const person = await createPerson("owner");
    await withClient(database.current.url, (c) =>
      c.query("DELETE FROM role_grants WHERE user_id = $1 AND source = 'manual'", [person.id]),
    );
    await syncOidcGrants(person.id, [{ role: "auditor", domain: null }]);
    const rows = await rowsOf(person.id);
    expect(rows.role).toBe("auditor");
    expect(rows.log[0].details.role).toEqual({ from: "owner", to: "auditor" });
  });

  it("two sign-ins at once end with one of the two sets, never a mix", async () => {
    const person = await createPerson("auditor");
    const a = await newDomain();
    const b = await newDomain();
    await Promise.all([
      syncOidcGrants(person.id, [{ role: "owner", domain: a }]),
      syncOidcGrants(person.id, [{ role: "support", domain: b }]),
    ]);
    const oidc = (await rowsOf(person.id)).grants.filter((g) => g.source === "oidc");
    expect(oidc).toHaveLength(1);
  });
});

describe("grantsWithKnownDomains", () => {
  it("leaves out grants to domains that do not exist, and names them", async () => {
    const known = await newDomain();
    const result = await grantsWithKnownDomains([
      { role: "owner", domain: known },
      { role: "owner", domain: "no-such-domain" },
      { role: "auditor", domain: null },
    ]);
    expect(result.grants).toEqual([
      { role: "owner", domain: known },
      { role: "auditor", domain: null },
    ]);
    expect(result.missing).toEqual(["no-such-domain"]);
  });
});

describe("the sign-in gate (Better Auth's validateUserInfo)", () => {
  const config = oidcConfig({
    OIDC_ISSUER: "https://idp.example.test",
    OIDC_CLIENT_ID: "rc",
    OIDC_CLIENT_SECRET: "x",
    OIDC_PROVIDER_NAME: "Acme",
    OIDC_GROUP_GRANTS: "rc-auditors=auditor,rc-ghosts=owner@never-created",
    BETTER_AUTH_URL: "https://console.example.test",
  })!;
  const gate = oidcValidateUserInfo(config);
  const source = (groups: unknown, action = "create-user") => ({
    method: "oauth",
    action,
    oauth: { providerId: "oidc", profile: { sub: "s", email: "e@x.test", groups } },
  });

  it("refuses groups that map to nothing, or only to domains that do not exist", async () => {
    for (const groups of [[], ["unmapped"], ["rc-ghosts"], "unmapped", undefined]) {
      expect(await gate({ user: { email: "e@x.test" }, source: source(groups) }, {})).toEqual({
        error: "NO_GRANTS",
        errorDescription: "Your groups at Acme give you no role in the Review Console. Ask an admin.",
      });
    }
  });

  it("lets a mapped person in, but not a disabled one; other sign-in methods are not its business", async () => {
    expect(await gate({ user: { email: "e@x.test" }, source: source(["rc-auditors"]) }, {})).toBeUndefined();
    const person = await createPerson("auditor");
    await withClient(database.current.url, (c) => c.query("UPDATE users SET banned = true WHERE id = $1", [person.id]));
    expect(await gate({ user: { id: person.id }, source: source(["rc-auditors"], "sign-in") }, {})).toMatchObject({
      error: "BANNED_USER",
    });
    expect(await gate({ user: {}, source: { method: "email" } }, {})).toBeUndefined();
  });

  it("never links the provider's identity to a person who signs in with a password (a break-glass admin)", async () => {
    const admin = await createPerson("admin");
    const link = (id: string) =>
      gate({ user: { id, email: "e@x.test" }, source: source(["rc-auditors"], "link-account") }, {});
    expect(await link(admin.id)).toMatchObject({ error: "PASSWORD_ACCOUNT_NOT_LINKED" });
    // Someone invited without a password yet, or whose password an admin cleared, may be linked.
    const invited = await createUser(
      { email: `inv-${randomBytes(4).toString("hex")}@test.local`, role: "auditor" },
      "system:test",
    );
    if (!invited.ok) throw new Error(invited.reason);
    expect(await link(invited.id)).toBeUndefined();
    await withClient(database.current.url, (c) =>
      c.query("UPDATE accounts SET password = NULL WHERE user_id = $1 AND provider_id = 'credential'", [admin.id]),
    );
    expect(await link(admin.id)).toBeUndefined();
  });
});
