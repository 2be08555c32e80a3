/**
 * `review-console domain …`, `user grant|revoke`, `user add --domain` and `token add --domain` as
 * an operator runs them (ADR 0029): a child process against DATABASE_URL, judged by its output,
 * its exit code and what it wrote, the decision log included.
 */
import { describe, expect, it } from "vitest";
import { runCli } from "../support/cli";
import { setupTestDatabase, withClient } from "../support/database";
import { newTag } from "../support/operations";

const database = setupTestDatabase();
const cli = (args: string[], env: Record<string, string> = {}) => runCli(database.current.url, args, env);
const sql = <T = any>(text: string, params: unknown[] = []) =>
  withClient(database.current.url, async (c) => (await c.query(text, params)).rows as T[]);

const logOf = (action: string, key: string, value: string) =>
  sql(`SELECT actor, action, reason, details FROM decision_log WHERE action = $1 AND details->>$2 = $3 ORDER BY seq`, [
    action,
    key,
    value,
  ]);
// Each run is a child process (tsx loads the CLI): seconds each on a busy machine.
const CLI_TIMEOUT = 600_000;
const logCount = async () => (await sql<{ n: number }>(`SELECT count(*)::int AS n FROM decision_log`))[0]!.n;

/** One `error: …` line and exit code 1: a failure the operator can fix. */
function expectOneLineError(run: ReturnType<typeof cli>, ...fragments: string[]) {
  expect(run.code, run.out).toBe(1);
  const lines = run.out.trim().split("\n");
  expect(lines, run.out).toHaveLength(1);
  expect(lines[0]).toMatch(/^error: /);
  for (const f of fragments) expect(lines[0]).toContain(f);
}

describe("review-console domain", () => {
  it(
    "add, set-kinds and remove: each in the decision log; a pattern of another domain is refused naming it",
    async () => {
      const tag = newTag();
      const payments = `pay-${tag}`;
      const added = cli([
        "domain",
        "add",
        payments,
        "--kinds",
        `card-${tag}.charge, inv-${tag}.*`,
        "--description",
        "money",
        "--reason",
        "payments team owns its queue",
      ]);
      expect(added, added.out).toMatchObject({ code: 0 });
      expect(added.stdout).toContain(`added domain ${payments}: card-${tag}.charge, inv-${tag}.*`);
      expect(await sql(`SELECT pattern FROM domain_kinds WHERE domain = $1 ORDER BY pattern`, [payments])).toEqual([
        { pattern: `card-${tag}.charge` },
        { pattern: `inv-${tag}.*` },
      ]);
      expect(await logOf("domain.created", "domain", payments)).toEqual([
        {
          actor: "system:cli",
          action: "domain.created",
          reason: "payments team owns its queue",
          details: { domain: payments, kinds: [`card-${tag}.charge`, `inv-${tag}.*`], description: "money" },
        },
      ]);

      // Another domain may not take a pattern payments owns; nothing is written.
      const before = await logCount();
      const taken = cli(["domain", "add", `msg-${tag}`, "--kinds", `mail-${tag}.*,inv-${tag}.*`]);
      expectOneLineError(taken, `inv-${tag}.* belongs to domain ${payments}`);
      expect(await sql(`SELECT 1 FROM domains WHERE name = $1`, [`msg-${tag}`])).toEqual([]);
      expect(await logCount()).toBe(before);

      // A more specific pattern is another pattern: it may go to another domain.
      const messaging = cli(["domain", "add", `msg-${tag}`, "--kinds", `inv-${tag}.reminder`]);
      expect(messaging, messaging.out).toMatchObject({ code: 0 });
      const [{ d }] = await sql(`SELECT domain_of_kind($1) AS d`, [`inv-${tag}.reminder`]);
      expect(d).toBe(`msg-${tag}`);

      const changed = cli(["domain", "set-kinds", payments, "--kinds", `card-${tag}.*`, "--reason", "all card kinds"]);
      expect(changed, changed.out).toMatchObject({ code: 0 });
      expect(await logOf("domain.kinds-changed", "domain", payments)).toEqual([
        {
          actor: "system:cli",
          action: "domain.kinds-changed",
          reason: "all card kinds",
          details: { domain: payments, from: [`card-${tag}.charge`, `inv-${tag}.*`], to: [`card-${tag}.*`] },
        },
      ]);

      const listed = cli(["domain", "list"]);
      expect(listed, listed.out).toMatchObject({ code: 0 });
      expect(listed.stdout.split("\n")[0]).toMatch(/^name\s+kinds\s+people\s+tokens\s+description$/);
      expect(listed.stdout.split("\n").find((l) => l.startsWith(`${payments} `))).toMatch(
        new RegExp(`^${payments}\\s+card-${tag}\\.\\*\\s+-\\s+-\\s+money$`),
      );

      const removed = cli(["domain", "remove", `msg-${tag}`]);
      expect(removed, removed.out).toMatchObject({ code: 0 });
      expect(await logOf("domain.removed", "domain", `msg-${tag}`)).toEqual([
        expect.objectContaining({
          actor: "system:cli",
          reason: "(no reason given on the command line)",
          details: expect.objectContaining({ kinds: [`inv-${tag}.reminder`] }),
        }),
      ]);
      expect(await sql(`SELECT 1 FROM domain_kinds WHERE pattern = $1`, [`inv-${tag}.reminder`])).toEqual([]);
    },
    CLI_TIMEOUT,
  );

  it(
    "bad input is one line naming the option, exit code 1, nothing opened or written",
    async () => {
      const before = await logCount();
      expectOneLineError(cli(["domain", "add", "Payments", "--kinds", "a.b"]), "--name", "lower-case");
      expectOneLineError(cli(["domain", "add", `ok-${newTag()}`, "--kinds", "a.b,a..b"]), "--kinds.1", "(a..b)");
      expectOneLineError(cli(["domain", "add", `ok-${newTag()}`, "--kinds", " , "]), "--kinds", "at least one");
      expectOneLineError(cli(["domain", "set-kinds", `none-${newTag()}`, "--kinds", "a.b"]), "no domain none-");
      expect(await logCount()).toBe(before);
    },
    CLI_TIMEOUT,
  );
});

describe("review-console user grant|revoke, user add --domain, token add --domain", () => {
  it(
    "grants and revokes in the log; remove is refused while people or tokens hold the domain",
    async () => {
      const tag = newTag();
      const domain = `pay-${tag}`;
      expect(cli(["domain", "add", domain, "--kinds", `card-${tag}.*`]).code).toBe(0);
      const email = `owner-${tag}@test.local`;

      const added = cli(["user", "add", "--email", email, "--role", "owner", "--domain", domain], {
        REVIEW_PASSWORD: "a long password for the test",
      });
      expect(added, added.out).toMatchObject({ code: 0 });
      expect(added.stdout).toContain(`added ${email} as owner in domain ${domain}`);
      const grantsOf = () =>
        sql(
          `SELECT g.role::text AS role, g.domain, u.role::text AS headline FROM role_grants g JOIN users u ON u.id = g.user_id
          WHERE u.email = $1 ORDER BY g.domain NULLS FIRST, g.role`,
          [email],
        );
      expect(await grantsOf()).toEqual([{ role: "owner", domain, headline: "owner" }]);
      expect(await logOf("user.created", "email", email)).toEqual([
        expect.objectContaining({ details: expect.objectContaining({ role: "owner", domain }) }),
      ]);

      const granted = cli(["user", "grant", "--email", email, "--role", "auditor", "--reason", "quarterly review"]);
      expect(granted, granted.out).toMatchObject({ code: 0 });
      expect(granted.stdout).toContain(`${email} is now auditor in every domain`);
      expect(await grantsOf()).toEqual([
        { role: "auditor", domain: null, headline: "owner" },
        { role: "owner", domain, headline: "owner" },
      ]);
      expect(await logOf("user.granted", "email", email)).toEqual([
        {
          actor: "system:cli",
          action: "user.granted",
          reason: "quarterly review",
          details: expect.objectContaining({ role: "auditor", domain: null, headline: { from: "owner", to: "owner" } }),
        },
      ]);
      expectOneLineError(cli(["user", "grant", "--email", email, "--role", "auditor"]), "already holds auditor");
      expectOneLineError(
        cli(["user", "grant", "--email", email, "--role", "owner", "--domain", `none-${tag}`]),
        `no domain none-${tag}`,
      );

      const token = cli(["token", "add", "--name", `worker-${tag}`, "--role", "consumer", "--domain", domain]);
      expect(token, token.out).toMatchObject({ code: 0 });
      expect(token.stdout).toContain(`token worker-${tag} (consumer in domain ${domain}) issued`);
      expect(await sql(`SELECT domain FROM api_tokens WHERE name = $1`, [`worker-${tag}`])).toEqual([{ domain }]);
      expect(await logOf("token.created", "name", `worker-${tag}`)).toEqual([
        expect.objectContaining({ details: expect.objectContaining({ domain }) }),
      ]);
      expectOneLineError(
        cli(["token", "add", "--name", `x-${tag}`, "--role", "consumer", "--domain", `none-${tag}`]),
        `no domain none-${tag}`,
      );

      const listed = cli(["domain", "list"]);
      expect(listed.stdout.split("\n").find((l) => l.startsWith(`${domain} `))).toContain(
        `${email} (owner)  worker-${tag} (consumer)`,
      );

      const before = await logCount();
      expectOneLineError(cli(["domain", "remove", domain]), email, `token worker-${tag}`, "revoke those first");
      expect(await logCount()).toBe(before);

      // Revoking the domain grant: the headline moves to the remaining (global) grant.
      const revoked = cli(["user", "revoke", "--email", email, "--role", "owner", "--domain", domain]);
      expect(revoked, revoked.out).toMatchObject({ code: 0 });
      expect(revoked.stdout).toContain("headline role: auditor (was owner)");
      expect(await grantsOf()).toEqual([{ role: "auditor", domain: null, headline: "auditor" }]);
      expect(await logOf("user.revoked", "email", email)).toEqual([
        expect.objectContaining({
          actor: "system:cli",
          details: expect.objectContaining({ role: "owner", domain, headline: { from: "owner", to: "auditor" } }),
        }),
      ]);
      expectOneLineError(
        cli(["user", "revoke", "--email", email, "--role", "owner", "--domain", domain]),
        "holds no owner grant",
      );

      // Still the token.
      expectOneLineError(cli(["domain", "remove", domain]), `token worker-${tag}`);
      expect(cli(["token", "revoke", "--name", `worker-${tag}`]).code).toBe(0);
      const removed = cli(["domain", "remove", domain, "--reason", "team merged"]);
      expect(removed, removed.out).toMatchObject({ code: 0 });
      // The revoked token can never work again: its domain is cleared with the domain.
      expect(await sql(`SELECT domain FROM api_tokens WHERE name = $1`, [`worker-${tag}`])).toEqual([{ domain: null }]);
      expect(await logOf("domain.removed", "domain", domain)).toEqual([
        expect.objectContaining({
          reason: "team merged",
          details: expect.objectContaining({ unusableTokensCleared: 1 }),
        }),
      ]);

      // The last grant may go too: the person then can do nothing; the headline stays.
      expect(cli(["user", "revoke", "--email", email, "--role", "auditor"]).code).toBe(0);
      expect(await grantsOf()).toEqual([]);
      expect(await sql(`SELECT role::text AS role FROM users WHERE email = $1`, [email])).toEqual([
        { role: "auditor" },
      ]);
    },
    CLI_TIMEOUT,
  );
});
