/**
 * `review-console user …` and `token …` as an operator runs them (docs/decisions/0011): a child
 * process against the database of DATABASE_URL, judged by its output, its exit code, what it
 * wrote, and what the API then lets the people and tokens do.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { POST as authPost } from "@/app/api/auth/[...all]/route";
import { GET as listReviews } from "@/app/api/v1/reviews/route";
import { createPerson, signedIn, signIn } from "../support/auth";
import { runCli } from "../support/cli";
import { setupTestDatabase, withClient } from "../support/database";
import { call } from "../support/http";
import { newTag } from "../support/operations";

const database = setupTestDatabase();

beforeAll(() => {
  vi.stubEnv("TRUSTED_PROXIES", "127.0.0.1");
});
afterAll(() => {
  vi.unstubAllEnvs();
});

// BETTER_AUTH_URL: where the printed links point.
const cli = (args: string[]) => runCli(database.current.url, args, { BETTER_AUTH_URL: "https://console.example" });

const sql = <T = any>(text: string, params: unknown[] = []) =>
  withClient(database.current.url, async (c) => (await c.query(text, params)).rows as T[]);

async function reviewsStatus(credential: { cookie?: string; token?: string }) {
  const res = await call(listReviews, {
    path: "/api/v1/reviews?limit=1",
    token: credential.token,
    headers: credential.cookie ? { cookie: credential.cookie } : undefined,
  });
  return res.status;
}

/** The output's lines whose first column is `first`. */
const rowsOf = (stdout: string, first: string) =>
  stdout.split("\n").filter((line) => line.split(/\s{2,}/)[0] === first);

describe("review-console token", () => {
  it("add --expires-in, list and revoke --name: the revoked token is a 401", async () => {
    const name = `cli-worker-${newTag()}`;
    const added = cli([
      "token",
      "add",
      "--name",
      name,
      "--role",
      "owner",
      "--expires-in",
      "30d",
      "--reason",
      "nightly export",
    ]);
    expect(added, added.out).toMatchObject({ code: 0 });
    const token = added.stdout.trimEnd().split("\n").at(-1)!;
    expect(token).toMatch(/^rct_[A-Za-z0-9_-]{43}$/);
    const [row] = await sql(
      `SELECT created_by, extract(epoch FROM expires_at - created_at)::int AS seconds FROM api_tokens WHERE name = $1`,
      [name],
    );
    expect(row.created_by).toBe("system:cli");
    expect(Math.abs(row.seconds - 30 * 86_400)).toBeLessThan(60);
    expect(await reviewsStatus({ token })).toBe(200);

    const listed = cli(["token", "list"]);
    expect(listed, listed.out).toMatchObject({ code: 0 });
    expect(listed.stdout.split("\n")[0]).toMatch(
      /^name\s+role\s+prefix\s+state\s+created by\s+created\s+last used\s+expires$/,
    );
    const [line] = rowsOf(listed.stdout, name);
    expect(line!.split(/\s{2,}/).slice(0, 5)).toEqual([name, "owner", token.slice(0, 12), "active", "system:cli"]);
    expect(listed.stdout).not.toContain(token);

    const revoked = cli(["token", "revoke", "--name", name, "--reason", "export moved elsewhere"]);
    expect(revoked, revoked.out).toMatchObject({ code: 0 });
    expect(revoked.stdout).toContain(`revoked token ${name} (${token.slice(0, 12)}…)`);
    expect(await reviewsStatus({ token })).toBe(401);
    expect((await sql(`SELECT revoked_by FROM api_tokens WHERE name = $1`, [name]))[0].revoked_by).toBe("system:cli");
    const entries = await sql(
      `SELECT actor, action, reason FROM decision_log WHERE details->>'name' = $1 ORDER BY seq`,
      [name],
    );
    expect(entries).toEqual([
      { actor: "system:cli", action: "token.created", reason: "nightly export" },
      { actor: "system:cli", action: "token.revoked", reason: "export moved elsewhere" },
    ]);

    const again = cli(["token", "revoke", "--name", name]);
    expect(again.code).toBe(1);
    expect(again.out).toContain(`token named ${name} is already revoked`);
    const unknown = cli(["token", "revoke", "--name", `nobody-${newTag()}`]);
    expect(unknown.code).toBe(1);
    const bad = cli(["token", "add", "--name", "x", "--role", "owner", "--expires-in", "30 days"]);
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/must be <n>h, <n>d or <n>w/);
  }, 180_000);
});

describe("review-console user", () => {
  it("list, disable (their open session ends), enable and set-role (their sessions end)", async () => {
    const person = await signedIn("owner", "cli-person");
    expect(await reviewsStatus({ cookie: person.cookie })).toBe(200);

    const disabled = cli(["user", "disable", "--email", person.email, "--reason", "on leave"]);
    expect(disabled, disabled.out).toMatchObject({ code: 0 });
    expect(disabled.stdout).toContain(`disabled ${person.email}; 1 session(s) ended`);
    expect(await reviewsStatus({ cookie: person.cookie })).toBe(401);
    expect((await signIn(person.email, person.password)).status).toBe(403);

    const listed = cli(["user", "list"]);
    expect(listed, listed.out).toMatchObject({ code: 0 });
    expect(listed.stdout.split("\n")[0]).toMatch(/^email\s+role\s+state\s+sessions\s+added$/);
    expect(
      rowsOf(listed.stdout, person.email)[0]!
        .split(/\s{2,}/)
        .slice(0, 4),
    ).toEqual([person.email, "owner", "disabled: on leave", "0"]);

    const enabled = cli(["user", "enable", "--email", person.email]);
    expect(enabled, enabled.out).toMatchObject({ code: 0 });
    const back = await signIn(person.email, person.password);
    expect(back.status).toBe(200);

    const changed = cli(["user", "set-role", "--email", person.email, "--role", "auditor", "--reason", "audit season"]);
    expect(changed, changed.out).toMatchObject({ code: 0 });
    expect(changed.stdout).toContain(`${person.email} is now auditor (was owner); 1 session(s) ended`);
    expect(await reviewsStatus({ cookie: back.cookie! })).toBe(401);
    expect((await signIn(person.email, person.password)).body.user.role).toBe("auditor");

    const entries = await sql(
      `SELECT actor, action, reason FROM decision_log WHERE details->>'userId' = $1 AND action LIKE 'user.%' ORDER BY seq`,
      [person.id],
    );
    expect(entries).toEqual([
      { actor: "system:test", action: "user.created", reason: `added ${person.email} as owner` },
      { actor: "system:cli", action: "user.disabled", reason: "on leave" },
      { actor: "system:cli", action: "user.enabled", reason: "(no reason given on the command line)" },
      { actor: "system:cli", action: "user.role-changed", reason: "audit season" },
    ]);

    const same = cli(["user", "set-role", "--email", person.email, "--role", "auditor"]);
    expect(same.code).toBe(1);
    expect(same.out).toContain("already has the role auditor");
    const nobody = cli(["user", "disable", "--email", `nobody-${newTag()}@test.local`]);
    expect(nobody.code).toBe(1);
    expect(nobody.out).toMatch(/no person with email/);
  }, 180_000);

  it("reset-password: the old password stops working and a one-time link sets a new one", async () => {
    const person = await createPerson("support", "cli-reset");
    const reset = cli(["user", "reset-password", "--email", person.email, "--reason", "forgot it"]);
    expect(reset, reset.out).toMatchObject({ code: 0 });
    const link = new URL(reset.stdout.trimEnd().split("\n").at(-1)!);
    expect(`${link.origin}${link.pathname}`).toBe("https://console.example/set-password");
    expect((await signIn(person.email, person.password)).status).toBe(401);

    const response = await authPost(
      new Request("http://localhost/api/auth/reset-password", {
        method: "POST",
        headers: { "content-type": "application/json", origin: "http://localhost" },
        body: JSON.stringify({ token: link.searchParams.get("token"), newPassword: "a fresh password 42" }),
      }),
    );
    expect(response.status).toBe(200);
    expect((await signIn(person.email, "a fresh password 42")).status).toBe(200);
  }, 60_000);
});
