/**
 * Sign-in for people (Better Auth) and what a session cookie may do in the API: the cookie,
 * the login rate limits (per client address and per email), the cross-site rule, role refusals, sign-up being off, and the people
 * created by `createUser` / `review-console user add`. Everything goes through the real route
 * handlers against a real PostgreSQL.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { POST as authPost } from "@/app/api/auth/[...all]/route";
import { GET as list, POST as report } from "@/app/api/v1/reviews/route";
import { SIGN_IN_RATE_LIMIT, currentUser, requireUser, SIGN_IN_ACCOUNT_LIMIT } from "@/lib/auth";
import { closeDb } from "@/lib/db/client";
import { apiRoute } from "@/lib/http/route";
import { createUser } from "@/lib/users";
import { createPerson, freshClientIp, signedIn, signIn } from "../support/auth";
import { runCli } from "../support/cli";
import { setupTestDatabase, withClient } from "../support/database";
import { call, testDefinition, tokenFor } from "../support/http";

// requireUser/currentUser read the request through next/headers and end through
// next/navigation; outside a Next request both are stand-ins that record what would happen.
const next = vi.hoisted(() => {
  class Interrupt extends Error {
    constructor(
      readonly kind: "redirect" | "forbidden",
      readonly url?: string,
    ) {
      super(`${kind}${url ? ` ${url}` : ""}`);
    }
  }
  return { Interrupt, headers: new Headers() };
});
vi.mock("next/headers", () => ({ headers: async () => next.headers }));
vi.mock("next/navigation", () => ({
  redirect: (url: string) => {
    throw new next.Interrupt("redirect", url);
  },
  forbidden: () => {
    throw new next.Interrupt("forbidden");
  },
}));

const database = setupTestDatabase();

// As if behind a proxy at 127.0.0.1: Better Auth takes the client address from X-Forwarded-For,
// and each sign-in here sends its own (freshClientIp), so tests do not share a login budget.
// Without TRUSTED_PROXIES the header is ignored (tested below).
const PROXY = "127.0.0.1";
beforeAll(() => {
  vi.stubEnv("TRUSTED_PROXIES", PROXY);
});
afterAll(() => {
  vi.unstubAllEnvs();
});

const sql = <T = any>(text: string, params: unknown[] = []) =>
  withClient(database.current.url, async (c) => (await c.query(text, params)).rows as T[]);

function validReport() {
  const tag = randomBytes(6).toString("hex");
  return {
    category: "manual-review",
    reason: "invalid-payload",
    requiredCheck: "look at it",
    attempts: 1,
    message: { id: `auth-${tag}`, kind: "invoice.reminder", effectKey: `auth-${tag}`, payload: {} },
  };
}

const logEntriesOf = (actor: string) =>
  sql(`SELECT actor, actor_role, action, reason, details FROM decision_log WHERE actor = $1 ORDER BY seq`, [actor]);

async function postAuth(pathname: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await authPost(
    new Request(`http://localhost/api/auth${pathname}`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: "http://localhost", ...headers },
      body: JSON.stringify(body),
    }),
  );
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null, headers: response.headers };
}

describe("sign-in through Better Auth's handler", () => {
  it("the right password sets an HttpOnly, SameSite=Lax cookie that authenticates GET /api/v1/reviews", async () => {
    const owner = await createPerson("owner");
    const answer = await signIn(owner.email, owner.password);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.user).toMatchObject({ email: owner.email, role: "owner" });
    const setCookie = answer.setCookies.find((c) => c.startsWith("review-console.session_token="))!;
    expect(setCookie).toMatch(/;\s*HttpOnly/i);
    expect(setCookie).toMatch(/;\s*SameSite=Lax/i);
    expect(setCookie).toMatch(/;\s*Path=\//i);
    // Served over plain http (a local npm start): not Secure, or the browser would drop it.
    expect(setCookie).not.toMatch(/;\s*Secure/i);

    const listed = await call(list, { path: "/api/v1/reviews", headers: { cookie: answer.cookie! } });
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body.items).toBeInstanceOf(Array);
    expect(await sql(`SELECT count(*)::int AS n FROM sessions WHERE user_id = $1`, [owner.id])).toEqual([{ n: 1 }]);
  });

  it("over https (directly or behind a proxy) the cookie is Secure, and authenticates https requests", async () => {
    const owner = await createPerson("owner");
    const direct = await signIn(owner.email, owner.password, { url: "https://console.test/api/auth/sign-in/email" });
    const proxied = await signIn(owner.email, owner.password, { headers: { "x-forwarded-proto": "https" } });
    for (const answer of [direct, proxied]) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const setCookie = answer.setCookies.find((c) => c.startsWith("__Secure-review-console.session_token="));
      expect(setCookie).toMatch(/;\s*Secure/i);
      expect(setCookie).toMatch(/;\s*HttpOnly/i);
    }
    const response = await list(
      new Request("https://console.test/api/v1/reviews", { headers: { cookie: direct.cookie! } }),
    );
    expect(response.status).toBe(200);
  });

  it("a wrong password or an unknown email is the same 401, sets no cookie and does not authenticate", async () => {
    const owner = await createPerson("owner");
    const wrong = await signIn(owner.email, `${owner.password}x`);
    const unknown = await signIn(`nobody-${randomBytes(4).toString("hex")}@test.local`, owner.password);
    for (const answer of [wrong, unknown]) {
      expect(answer.status).toBe(401);
      expect(answer.cookie).toBeNull();
    }
    expect(wrong.body).toEqual(unknown.body);
    // A cookie that was never issued (or is forged) is no session either.
    const forged = await call(list, {
      path: "/api/v1/reviews",
      headers: { cookie: "review-console.session_token=made-up.signature" },
    });
    expect(forged.status).toBe(401);
    expect(forged.body.error.code).toBe("unauthenticated");
  });

  it("sign-out ends the session: the old cookie no longer authenticates", async () => {
    const support = await signedIn("support");
    const out = await postAuth("/sign-out", {}, { cookie: support.cookie });
    expect(out.status, JSON.stringify(out.body)).toBe(200);
    expect(out.headers.getSetCookie().join("\n")).toMatch(/review-console\.session_token=;.*Max-Age=0/i);
    const after = await call(list, { path: "/api/v1/reviews", headers: { cookie: support.cookie } });
    expect(after.status).toBe(401);
    expect(await sql(`SELECT count(*)::int AS n FROM sessions WHERE user_id = $1`, [support.id])).toEqual([{ n: 0 }]);
  });

  it("sign-up is refused and creates nobody", async () => {
    const email = `walk-in-${randomBytes(4).toString("hex")}@test.local`;
    const answer = await postAuth(
      "/sign-up/email",
      { name: "Walk In", email, password: "a-long-enough-password", role: "admin" },
      { "x-forwarded-for": freshClientIp() },
    );
    expect(answer.status).toBe(400);
    expect(await sql(`SELECT id FROM users WHERE email = $1`, [email])).toEqual([]);
  });

  it("nobody can give themselves a role: Better Auth's update-user refuses `role`", async () => {
    const support = await signedIn("support");
    const answer = await postAuth("/update-user", { role: "admin" }, { cookie: support.cookie });
    expect(answer.status).toBe(400);
    expect(await sql(`SELECT role FROM users WHERE id = $1`, [support.id])).toEqual([{ role: "support" }]);
  });

  it("the password is stored as an Argon2id hash in a credential account; role and the log entry are written", async () => {
    const admin = await createPerson("admin");
    expect(await sql(`SELECT email, role, email_verified FROM users WHERE id = $1`, [admin.id])).toEqual([
      { email: admin.email, role: "admin", email_verified: true },
    ]);
    const accounts = await sql(`SELECT provider_id, account_id, password FROM accounts WHERE user_id = $1`, [admin.id]);
    expect(accounts).toEqual([{ provider_id: "credential", account_id: admin.id, password: expect.any(String) }]);
    expect(accounts[0].password).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(accounts[0].password).not.toContain(admin.password);
    const entries = await sql(
      `SELECT actor, action, details FROM decision_log WHERE action = 'user.created' AND details->>'userId' = $1`,
      [admin.id],
    );
    expect(entries).toEqual([
      {
        actor: "system:test",
        action: "user.created",
        details: { userId: admin.id, email: admin.email, role: "admin" },
      },
    ]);
  });
});

describe("the login rate limit", () => {
  it(`refuses the ${SIGN_IN_RATE_LIMIT.max + 1}th quick attempt from one address with 429, even with the right password`, async () => {
    const owner = await createPerson("owner");
    const ip = freshClientIp();
    for (let i = 0; i < SIGN_IN_RATE_LIMIT.max; i++) {
      expect((await signIn(owner.email, "wrong-password-123", { ip })).status).toBe(401);
    }
    const refused = await signIn(owner.email, owner.password, { ip });
    expect(refused.status).toBe(429);
    expect(refused.cookie).toBeNull();
    // Counted per client address: someone else signs in as usual.
    expect((await signIn(owner.email, owner.password, { ip: freshClientIp() })).status).toBe(200);
    // The count lives in the database, so every process of the console sees it.
    expect(await sql(`SELECT count FROM rate_limits WHERE key = $1`, [`${ip}|/sign-in/email`])).toEqual([
      { count: SIGN_IN_RATE_LIMIT.max },
    ]);
  });

  it("counts failures only: many correct sign-ins from one address in a minute all pass (an office behind one proxy)", async () => {
    const ip = freshClientIp();
    const people = await Promise.all([0, 1, 2].map(() => createPerson("owner")));
    for (let round = 0; round < SIGN_IN_RATE_LIMIT.max; round++) {
      for (const person of people) expect((await signIn(person.email, person.password, { ip })).status).toBe(200);
    }
    expect(await sql(`SELECT count FROM rate_limits WHERE key = $1`, [`${ip}|/sign-in/email`])).toEqual([{ count: 0 }]);
    // Failures still count, and a success between them does not wipe them.
    for (let i = 0; i < SIGN_IN_RATE_LIMIT.max - 1; i++) {
      expect((await signIn(people[0]!.email, "wrong-password-123", { ip })).status).toBe(401);
    }
    expect((await signIn(people[1]!.email, people[1]!.password, { ip })).status).toBe(200);
    expect((await signIn(people[2]!.email, "wrong-password-123", { ip })).status).toBe(401);
    expect((await signIn(people[1]!.email, people[1]!.password, { ip })).status).toBe(429);
  });

  it("holds across processes: a fresh client and Better Auth instance still refuse", async () => {
    const owner = await createPerson("owner");
    const ip = freshClientIp();
    for (let i = 0; i < SIGN_IN_RATE_LIMIT.max; i++) await signIn(owner.email, "wrong-password-123", { ip });
    await closeDb(); // the next call builds a new Prisma client and a new Better Auth instance
    expect((await signIn(owner.email, owner.password, { ip })).status).toBe(429);
  });

  it("behind a proxy, the client is the right-most address that is not a trusted proxy", async () => {
    const owner = await createPerson("owner");
    // What a proxy that appends (nginx $proxy_add_x_forwarded_for) passes on: whatever the client
    // sent, then the address it saw.
    const client = "198.51.100.77";
    const chain = (i: number) => `192.0.2.${i + 1}, ${client}, ${PROXY}`;
    for (let i = 0; i < SIGN_IN_RATE_LIMIT.max; i++) {
      expect((await signIn(owner.email, "wrong-password-123", { ip: chain(i) })).status).toBe(401);
    }
    expect((await signIn(owner.email, owner.password, { ip: chain(99) })).status).toBe(429);
    expect(await sql(`SELECT count FROM rate_limits WHERE key = $1`, [`${client}|/sign-in/email`])).toEqual([
      { count: SIGN_IN_RATE_LIMIT.max },
    ]);
  });

  it("without TRUSTED_PROXIES, X-Forwarded-For is ignored: a new value per attempt buys no new budget", async () => {
    // Next sets X-Forwarded-For from the socket only when the client sent none, so without a
    // proxy the header is the client's to choose. Ignored, all direct clients share one bucket:
    // `no-trusted-ip` in production, 127.0.0.1 under NODE_ENV=test.
    vi.stubEnv("TRUSTED_PROXIES", "");
    const shared = `127.0.0.1|/sign-in/email`;
    try {
      await sql(`DELETE FROM rate_limits WHERE key = $1`, [shared]);
      const owner = await createPerson("owner");
      const forged = (i: number) => `192.0.2.${100 + i}`;
      for (let i = 0; i < SIGN_IN_RATE_LIMIT.max; i++) {
        expect((await signIn(owner.email, "wrong-password-123", { ip: forged(i) })).status).toBe(401);
      }
      const refused = await postAuth(
        "/sign-in/email",
        { email: owner.email, password: owner.password },
        { "x-forwarded-for": forged(99) },
      );
      expect(refused.status).toBe(429);
      expect(refused.headers.get("x-retry-after")).toMatch(/^\d+$/);
      expect(await sql(`SELECT key, count FROM rate_limits WHERE key = $1 OR key LIKE '192.0.2.%'`, [shared])).toEqual([
        { key: shared, count: SIGN_IN_RATE_LIMIT.max },
      ]);
    } finally {
      vi.stubEnv("TRUSTED_PROXIES", PROXY);
      await sql(`DELETE FROM rate_limits WHERE key = $1`, [shared]);
    }
  });
});

describe("the login limit per email address", () => {
  const { max, window } = SIGN_IN_ACCOUNT_LIMIT;
  const WRONG = "wrong-password-123";

  /** One sign-in attempt, from a client address of its own unless `ip` says otherwise. */
  async function attempt(email: string, password: string, ip = freshClientIp()) {
    const answer = await postAuth("/sign-in/email", { email, password }, { "x-forwarded-for": ip });
    const cookie = answer.headers.getSetCookie().find((c) => /^review-console\.session_token=[^;]+/.test(c));
    return { ...answer, signedIn: cookie !== undefined };
  }

  const failuresOf = (email: string) =>
    sql(`SELECT failures, locked_at IS NOT NULL AS locked FROM sign_in_failures WHERE email = $1`, [email]);
  const lockoutsOf = (email: string) =>
    sql(
      `SELECT actor, actor_role, action, reason, details FROM decision_log
        WHERE action = 'auth.sign-in-locked' AND details->>'email' = $1 ORDER BY seq`,
      [email],
    );

  it(`refuses the ${max + 1}th attempt with 429 and Retry-After, from any address, even with the right password`, async () => {
    const owner = await createPerson("owner");
    for (let i = 0; i < max; i++) {
      // Counted per address, lower-cased the way Better Auth looks people up.
      const email = i % 2 ? owner.email.toUpperCase() : owner.email;
      const answer = await attempt(email, WRONG);
      expect(answer.status, JSON.stringify(answer.body)).toBe(401);
    }
    const refused = await attempt(owner.email, owner.password);
    expect(refused.status).toBe(429);
    expect(refused.signedIn).toBe(false);
    expect(refused.body).toMatchObject({ code: "TOO_MANY_FAILED_SIGN_INS" });
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(window - 60);
    expect(retryAfter).toBeLessThanOrEqual(window);
    // A refused attempt is not verified and not counted.
    expect((await attempt(owner.email.toUpperCase(), WRONG)).status).toBe(429);
    expect(await failuresOf(owner.email)).toEqual([{ failures: max, locked: true }]);

    // Someone else signs in as usual, and their success leaves this count alone.
    const other = await createPerson("support");
    expect((await attempt(other.email, other.password)).status).toBe(200);
    expect(await failuresOf(owner.email)).toEqual([{ failures: max, locked: true }]);
    expect((await attempt(owner.email, owner.password)).status).toBe(429);
  });

  it("a success clears the account's own failures and nobody else's", async () => {
    const [alice, bob] = [await createPerson("owner"), await createPerson("owner")];
    for (let i = 0; i < 3; i++) expect((await attempt(alice.email, WRONG)).status).toBe(401);
    for (let i = 0; i < 4; i++) expect((await attempt(bob.email, WRONG)).status).toBe(401);
    expect(await failuresOf(alice.email)).toEqual([{ failures: 3, locked: false }]);

    expect((await attempt(alice.email, alice.password)).status).toBe(200);
    expect(await failuresOf(alice.email)).toEqual([]);
    expect(await failuresOf(bob.email)).toEqual([{ failures: 4, locked: false }]);
  });

  it("once the window has passed, the right password signs in again and the count starts over", async () => {
    const owner = await createPerson("owner");
    for (let i = 0; i < max; i++) await attempt(owner.email, WRONG);
    expect((await attempt(owner.email, owner.password)).status).toBe(429);

    const moveBack = (email: string, seconds: number) =>
      sql(
        `UPDATE sign_in_failures SET window_started_at = window_started_at - $2 * interval '1 second',
                locked_at = locked_at - $2 * interval '1 second' WHERE email = $1`,
        [email, seconds],
      );
    await moveBack(owner.email, window - 5);
    expect((await attempt(owner.email, owner.password)).status).toBe(429); // not quite yet
    await moveBack(owner.email, 5);
    expect((await attempt(owner.email, WRONG)).status).toBe(401);
    expect(await failuresOf(owner.email)).toEqual([{ failures: 1, locked: false }]);
    const answer = await attempt(owner.email, owner.password);
    expect(answer.status).toBe(200);
    expect(answer.signedIn).toBe(true);
    expect(await failuresOf(owner.email)).toEqual([]);
  });

  it("a lockout writes one auth.sign-in-locked decision-log entry; a plain failure writes none", async () => {
    const owner = await createPerson("owner");
    for (let i = 0; i < max - 1; i++) await attempt(owner.email, WRONG);
    expect(await lockoutsOf(owner.email)).toEqual([]);

    const ip = "198.51.100.23";
    expect((await attempt(owner.email, WRONG, ip)).status).toBe(401);
    for (let i = 0; i < 3; i++) expect((await attempt(owner.email, owner.password)).status).toBe(429);
    const entries = await lockoutsOf(owner.email);
    expect(entries).toEqual([
      {
        actor: "system:sign-in-limit",
        actor_role: null,
        action: "auth.sign-in-locked",
        reason: expect.stringMatching(
          new RegExp(`^${max} failed sign-ins within ${window / 60} minutes: refused until `),
        ),
        details: {
          email: owner.email,
          userId: owner.id,
          failures: max,
          windowSeconds: window,
          lockedUntil: expect.any(String),
          clientIp: ip,
        },
      },
    ]);
    const [{ locked_until }] = await sql(
      `SELECT window_started_at + $2 * interval '1 second' AS locked_until FROM sign_in_failures WHERE email = $1`,
      [owner.email, window],
    );
    expect(entries[0].details.lockedUntil).toBe(locked_until.toISOString());
  });

  it("an email that belongs to no one is locked the same way (a 429 tells nothing about who exists)", async () => {
    const nobody = `nobody-${randomBytes(4).toString("hex")}@test.local`;
    for (let i = 0; i < max; i++) expect((await attempt(nobody, WRONG)).status).toBe(401);
    const refused = await attempt(nobody, WRONG);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: "TOO_MANY_FAILED_SIGN_INS" });
    expect((await lockoutsOf(nobody)).map((e) => e.details.userId)).toEqual([null]);
  });

  it(`parallel guesses get no more than ${max} verified`, async () => {
    const owner = await createPerson("owner");
    const answers = await Promise.all(Array.from({ length: 2 * max }, () => attempt(owner.email, WRONG)));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([...Array(max).fill(401), ...Array(max).fill(429)]);
    expect(await failuresOf(owner.email)).toEqual([{ failures: max, locked: true }]);
    expect(await lockoutsOf(owner.email)).toHaveLength(1);
  });
});

describe("cookie-authenticated API requests: the cross-site rule (CSRF)", () => {
  // A handler of the usual shape that anyone signed in may call: shows what got through.
  const whoAmI = apiRoute(testDefinition("reviews.read", "/api/v1/whoami"), async ({ actor }) =>
    Response.json({ actor }),
  );

  // Another site's page made the person's browser send these: the refusal goes to the
  // application log only, never into the decision log under the person's name (ADR 0010).
  it("a cookie POST with a foreign Origin is refused (403 cross-site); nothing is written under the person's name", async () => {
    const owner = await signedIn("owner");
    const before = await sql(`SELECT count(*)::int AS n FROM review_records`);
    const answer = await call(report, {
      path: "/api/v1/reviews",
      body: validReport(),
      headers: { cookie: owner.cookie, origin: "https://evil.example" },
    });
    expect(answer.status).toBe(403);
    expect(answer.body.error.code).toBe("cross-site");
    expect(await sql(`SELECT count(*)::int AS n FROM review_records`)).toEqual(before);
    expect(await logEntriesOf(`user:${owner.email}`)).toEqual([]);
  });

  it("Sec-Fetch-Site: cross-site is refused too, with or without an Origin", async () => {
    const owner = await signedIn("owner");
    const answer = await call(whoAmI, {
      method: "POST",
      path: "/api/v1/whoami",
      body: {},
      headers: { cookie: owner.cookie, "sec-fetch-site": "cross-site" },
    });
    expect(answer.status).toBe(403);
    expect(answer.body.error.code).toBe("cross-site");
    expect(await logEntriesOf(`user:${owner.email}`)).toEqual([]);
  });

  it("the same Origin is accepted: the request goes on to authorization and the handler", async () => {
    const support = await signedIn("support");
    const attempts: Record<string, string>[] = [
      { cookie: support.cookie, origin: "http://localhost", "sec-fetch-site": "same-origin" },
      { cookie: support.cookie }, // no Origin at all: not a browser's cross-site request
    ];
    for (const headers of attempts) {
      const answer = await call(whoAmI, { method: "POST", path: "/api/v1/whoami", body: {}, headers });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body.actor).toEqual({
        kind: "user",
        id: support.id,
        label: `user:${support.email}`,
        role: "support",
        // A person made by createUser holds their role in every domain (ADR 0029).
        grants: [{ role: "support", domain: null }],
        // The person behind the actor: four eyes compare it (ADR 0037).
        person: support.id,
      });
    }
    expect(await logEntriesOf(`user:${support.email}`)).toEqual([]);
  });

  it("this site is the host the browser addressed (Host / X-Forwarded-Host), as Next and proxies pass it", async () => {
    const owner = await signedIn("owner");
    // Next builds request.url from the address it listens on, not from the browser's Host.
    const send = (headers: Record<string, string>, cookie = owner.cookie) =>
      whoAmI(
        new Request("http://localhost:3000/api/v1/whoami", {
          method: "POST",
          headers: { cookie, "content-type": "application/json", ...headers },
          body: "{}",
        }),
      );
    const direct = { host: "127.0.0.1:4000", "x-forwarded-proto": "http" };
    expect((await send({ ...direct, origin: "http://127.0.0.1:4000" })).status).toBe(200);
    // Behind a TLS proxy the cookie is the Secure one, from a sign-in over https.
    const proxied = { host: "10.0.0.5:3000", "x-forwarded-host": "console.example", "x-forwarded-proto": "https" };
    const overHttps = await signIn(owner.email, owner.password, {
      headers: proxied,
      origin: "https://console.example",
    });
    expect(overHttps.cookie).toMatch(/^__Secure-/);
    expect((await send({ ...proxied, origin: "https://console.example" }, overHttps.cookie!)).status).toBe(200);
    expect((await send({ ...proxied, origin: "http://10.0.0.5:3000" }, overHttps.cookie!)).status).toBe(403);
    for (const origin of ["http://127.0.0.1:4001", "http://console.example", "https://127.0.0.1:4000"]) {
      expect((await send({ ...direct, origin })).status, origin).toBe(403);
    }
    // Better Auth applies the same rule to its own cookie requests (here: sign-out).
    const out = await authPost(
      new Request("http://localhost:3000/api/auth/sign-out", {
        method: "POST",
        headers: { cookie: owner.cookie, "content-type": "application/json", ...direct, origin: "http://evil.example" },
        body: "{}",
      }),
    );
    expect(out.status).toBe(403);
    const back = await authPost(
      new Request("http://localhost:3000/api/auth/sign-out", {
        method: "POST",
        headers: {
          cookie: owner.cookie,
          "content-type": "application/json",
          ...direct,
          origin: "http://127.0.0.1:4000",
        },
        body: "{}",
      }),
    );
    expect(back.status).toBe(200);
  });

  it("reading is not subject to the rule, and bearer requests are exempt", async () => {
    const auditor = await signedIn("auditor");
    const read = await call(list, {
      path: "/api/v1/reviews",
      headers: { cookie: auditor.cookie, origin: "https://evil.example", "sec-fetch-site": "cross-site" },
    });
    expect(read.status).toBe(200);
    const consumer = await tokenFor("consumer");
    const reported = await call(report, {
      path: "/api/v1/reviews",
      token: consumer,
      body: validReport(),
      headers: { origin: "https://evil.example", "sec-fetch-site": "cross-site" },
    });
    expect(reported.status, JSON.stringify(reported.body)).toBe(201);
  });

  it("a role refusal names the person in the decision log", async () => {
    const auditor = await signedIn("auditor");
    const answer = await call(report, {
      path: "/api/v1/reviews",
      body: validReport(),
      headers: { cookie: auditor.cookie, origin: "http://localhost" },
    });
    expect(answer.status).toBe(403);
    expect(answer.body.error.code).toBe("forbidden");
    expect(await logEntriesOf(`user:${auditor.email}`)).toEqual([
      {
        actor: `user:${auditor.email}`,
        actor_role: "auditor",
        action: "authorization.refused",
        reason: "role auditor may not reviews.report",
        details: { method: "POST", path: "/api/v1/reviews", permission: "reviews.report" },
      },
    ]);
  });

  it("a proxy's Basic Authorization header does not hide the session cookie; a bad bearer token is still a 401", async () => {
    const owner = await signedIn("owner");
    const basic = await call(list, {
      path: "/api/v1/reviews",
      headers: { cookie: owner.cookie, authorization: "Basic dXNlcjpwYXNz" },
    });
    expect(basic.status).toBe(200);
    const bearer = await call(list, {
      path: "/api/v1/reviews",
      headers: { cookie: owner.cookie, authorization: "Bearer rct_unknown" },
    });
    expect(bearer.status).toBe(401);
  });
});

describe("currentUser and requireUser (server components)", () => {
  it("signed out: currentUser is null and requireUser redirects to /login?next=<path>", async () => {
    next.headers = new Headers();
    expect(await currentUser()).toBeNull();
    await expect(requireUser("reviews.read", "/reviews?status=open")).rejects.toMatchObject({
      kind: "redirect",
      url: "/login?next=%2Freviews%3Fstatus%3Dopen",
    });
    // A path that could lead off the site is dropped rather than echoed.
    await expect(requireUser(undefined, "//evil.example/")).rejects.toMatchObject({ kind: "redirect", url: "/login" });
  });

  it("signed in: the person; a role without the permission is logged and gets forbidden()", async () => {
    const auditor = await signedIn("auditor");
    next.headers = new Headers({ cookie: auditor.cookie });
    const expected = {
      id: auditor.id,
      email: auditor.email,
      role: "auditor",
      grants: [{ role: "auditor", domain: null }],
      timeZone: "UTC",
    };
    expect(await currentUser()).toEqual(expected);
    expect(await requireUser()).toEqual(expected);
    expect(await requireUser("audit.read", "/audit")).toEqual(expected);
    expect(await logEntriesOf(`user:${auditor.email}`)).toEqual([]);

    await expect(requireUser("users.manage", "/admin/users")).rejects.toMatchObject({ kind: "forbidden" });
    expect(await logEntriesOf(`user:${auditor.email}`)).toEqual([
      {
        actor: `user:${auditor.email}`,
        actor_role: "auditor",
        action: "authorization.refused",
        reason: "role auditor may not users.manage",
        details: { method: "GET", path: "/admin/users", permission: "users.manage", userId: auditor.id },
      },
    ]);
  });
});

describe("createUser", () => {
  it("refuses a second person with the same email (in any case) and writes nothing for it", async () => {
    const first = await createPerson("support");
    const again = await createUser({ email: first.email.toUpperCase(), role: "admin", password: "another-password-1" });
    expect(again).toEqual({ ok: false, reason: "email-taken" });
    expect(
      await sql(
        `SELECT (SELECT count(*) FROM users WHERE email = $1)::int AS users,
                (SELECT count(*) FROM accounts a JOIN users u ON u.id = a.user_id WHERE u.email = $1)::int AS accounts,
                (SELECT count(*) FROM decision_log WHERE action = 'user.created' AND details->>'email' = $1)::int AS entries`,
        [first.email],
      ),
    ).toEqual([{ users: 1, accounts: 1, entries: 1 }]);
    // The first one still signs in with their own password.
    expect((await signIn(first.email, first.password)).status).toBe(200);
  });

  it("refuses bad input before writing anything", async () => {
    await expect(
      createUser({ email: "not-an-email", role: "owner", password: "long-enough-password" }),
    ).rejects.toThrow();
    await expect(createUser({ email: "short@test.local", role: "owner", password: "short" })).rejects.toThrow();
    await expect(
      createUser({ email: "robot@test.local", role: "consumer" as "owner", password: "long-enough-password" }),
    ).rejects.toThrow();
    expect(await sql(`SELECT email FROM users WHERE email IN ('short@test.local', 'robot@test.local')`)).toEqual([]);
  });
});

describe("review-console user add", () => {
  const cli = (args: string[], env: Record<string, string> = {}) =>
    runCli(database.current.url, args, { REVIEW_PASSWORD: "", ...env });

  it("adds a person who can then sign in; a duplicate or bad input exits 1 with a clear message", async () => {
    const email = `cli-${randomBytes(4).toString("hex")}@test.local`;
    const password = "a-cli-password-12";
    const added = cli(["user", "add", "--email", email, "--role", "owner"], { REVIEW_PASSWORD: password });
    expect(added, added.out).toMatchObject({ code: 0 });
    expect(added.out).toContain(`added ${email} as owner`);
    expect(added.out).not.toContain(password);
    expect((await signIn(email, password)).status).toBe(200);

    const duplicate = cli(["user", "add", "--email", email.toUpperCase(), "--role", "admin", "--password", password]);
    expect(duplicate.code).toBe(1);
    expect(duplicate.out).toContain(`error: a user with email ${email} already exists`);

    const short = cli(["user", "add", "--email", `x-${email}`, "--role", "owner", "--password", "short"]);
    expect(short.code).toBe(1);
    expect(short.out).toContain("error: password: must have at least 12 characters");

    const consumer = cli(["user", "add", "--email", `y-${email}`, "--role", "consumer", "--password", password]);
    expect(consumer.code).toBe(1);
    expect(consumer.out).toMatch(/argument 'consumer' is invalid/);
  }, 60_000);
});
