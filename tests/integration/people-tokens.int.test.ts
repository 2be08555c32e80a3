/**
 * People and tokens have a life cycle (docs/decisions/0011-people-and-tokens.md), through
 * the real route handlers against a real PostgreSQL: tokens issued, listed, expiring and revoked
 * (a 401 after), people invited, disabled, given another role and reset (their sessions end at
 * once), the admin plugin's endpoints and the request for a password link not served over HTTP,
 * no session token in any answer, and an operation or automatic-replay switch pausing when its
 * authority loses the permission.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { GET as authGet, POST as authPost } from "@/app/api/auth/[...all]/route";
import { POST as confirmRoute } from "@/app/api/v1/operations/[operationId]/confirm/route";
import { POST as dryRunRoute } from "@/app/api/v1/operations/[operationId]/dry-run/route";
import { POST as resumeRoute } from "@/app/api/v1/operations/[operationId]/resume/route";
import { PUT as autoReplayRoute } from "@/app/api/v1/operations/auto-replay/[kind]/route";
import { POST as createOperationRoute } from "@/app/api/v1/operations/route";
import { POST as disableRoute } from "@/app/api/v1/people/[userId]/disable/route";
import { POST as enableRoute } from "@/app/api/v1/people/[userId]/enable/route";
import { POST as passwordLinkRoute } from "@/app/api/v1/people/[userId]/password-link/route";
import { POST as roleRoute } from "@/app/api/v1/people/[userId]/role/route";
import { GET as listPeople, POST as invite } from "@/app/api/v1/people/route";
import { POST as actionRoute } from "@/app/api/v1/reviews/[id]/actions/route";
import { GET as listReviews } from "@/app/api/v1/reviews/route";
import { POST as revokeRoute } from "@/app/api/v1/tokens/[tokenId]/revoke/route";
import { GET as listTokensRoute, POST as issueRoute } from "@/app/api/v1/tokens/route";
import { createApiToken, hashToken } from "@/lib/auth";
import { autoReplayReady, listAutoReplaySettings, dispatchStep } from "@/lib/actions";
import { createPerson, signedIn, signIn } from "../support/auth";
import { setupTestDatabase, withClient } from "../support/database";
import { call } from "../support/http";
import { envelope, newTag, reportGaps } from "../support/operations";

const database = setupTestDatabase();

// As if behind a proxy at 127.0.0.1, so each sign-in (freshClientIp) has a login budget of its own.
beforeAll(() => {
  vi.stubEnv("TRUSTED_PROXIES", "127.0.0.1");
});
afterAll(() => {
  vi.unstubAllEnvs();
});

const sql = <T = any>(text: string, params: unknown[] = []) =>
  withClient(database.current.url, async (c) => (await c.query(text, params)).rows as T[]);

const asCookie = (cookie: string) => ({ cookie, origin: "http://localhost" });

async function authRequest(method: "GET" | "POST", pathname: string, cookie?: string, body?: unknown) {
  const handler = method === "GET" ? authGet : authPost;
  const response = await handler(
    new Request(`http://localhost/api/auth${pathname}`, {
      method,
      headers: {
        origin: "http://localhost",
        ...(cookie ? { cookie } : {}),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  const text = await response.text();
  let json: any = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = text;
  }
  return { status: response.status, body: json };
}

/** GET /api/v1/reviews with this cookie or token: 200 while it authenticates, else 401. */
async function reviewsStatus(credential: { cookie?: string; token?: string }) {
  const res = await call(listReviews, {
    path: "/api/v1/reviews?limit=1",
    token: credential.token,
    headers: credential.cookie ? { cookie: credential.cookie } : undefined,
  });
  return res.status;
}

const entriesOf = (action: string, key: string, value: string) =>
  sql(`SELECT actor, actor_role, action, reason, details FROM decision_log WHERE action = $1 AND details->>$2 = $3`, [
    action,
    key,
    value,
  ]);

describe("tokens", () => {
  it("an admin issues a token: shown once, only its hash kept; a call with it succeeds and is listed with its issuer", async () => {
    const admin = await signedIn("admin");
    const name = `billing-${newTag()}`;
    const issued = await call(issueRoute, {
      path: "/api/v1/tokens",
      headers: asCookie(admin.cookie),
      body: { name, role: "owner", expiresInDays: 30, reason: "billing worker reads the queue" },
    });
    expect(issued.status, JSON.stringify(issued.body)).toBe(201);
    const secret: string = issued.body.secret;
    expect(secret).toMatch(/^rct_[A-Za-z0-9_-]{43}$/);
    expect(issued.body.token).toMatchObject({ name, role: "owner", state: "active", createdBy: `user:${admin.email}` });
    const expiresIn = new Date(issued.body.token.expiresAt).getTime() - Date.now();
    expect(expiresIn).toBeGreaterThan(29.9 * 86_400_000);
    expect(expiresIn).toBeLessThanOrEqual(30 * 86_400_000);
    const [row] = await sql(`SELECT token_hash FROM api_tokens WHERE id = $1`, [issued.body.token.id]);
    expect(row.token_hash).toBe(hashToken(secret));

    expect(await reviewsStatus({ token: secret })).toBe(200);
    const listed = await call(listTokensRoute, { path: "/api/v1/tokens", headers: asCookie(admin.cookie) });
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    const mine = listed.body.tokens.find((t: any) => t.id === issued.body.token.id);
    expect(mine.lastUsedAt).not.toBeNull();

    expect(await entriesOf("token.created", "tokenId", issued.body.token.id)).toEqual([
      {
        actor: `user:${admin.email}`,
        actor_role: "admin",
        action: "token.created",
        reason: "billing worker reads the queue",
        details: expect.objectContaining({ name, role: "owner", expiresAt: issued.body.token.expiresAt }),
      },
    ]);
  });

  it("a revoked token is a 401 from then on; the revocation is logged with its reason", async () => {
    const admin = await signedIn("admin");
    const { id, token } = await createApiToken(`revoke-${newTag()}`, "consumer", "system:test");
    expect(await reviewsStatus({ token })).toBe(403); // known: consumers may not read the queue
    const revoked = await call(revokeRoute, {
      path: `/api/v1/tokens/${id}/revoke`,
      params: { tokenId: id },
      headers: asCookie(admin.cookie),
      body: { reason: "the worker was decommissioned" },
    });
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    expect(revoked.body.token).toMatchObject({ state: "revoked", revokedBy: `user:${admin.email}` });
    const refused = await call(listReviews, { path: "/api/v1/reviews", token });
    expect(refused).toEqual({
      status: 401,
      body: { error: { code: "unauthenticated", message: "the token is unknown, revoked or expired" } },
    });
    expect(await entriesOf("token.revoked", "tokenId", id)).toEqual([
      expect.objectContaining({ actor: `user:${admin.email}`, reason: "the worker was decommissioned" }),
    ]);

    const again = await call(revokeRoute, {
      path: `/api/v1/tokens/${id}/revoke`,
      params: { tokenId: id },
      headers: asCookie(admin.cookie),
      body: { reason: "twice" },
    });
    expect(again.status).toBe(409);
  });

  it("an expired token is a 401, and listed as expired", async () => {
    const { id, token } = await createApiToken(`expiring-${newTag()}`, "owner", "system:test", {
      expiresAt: new Date(Date.now() + 60_000),
    });
    expect(await reviewsStatus({ token })).toBe(200);
    await sql(`UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1`, [id]);
    expect(await reviewsStatus({ token })).toBe(401);
    const admin = await signedIn("admin");
    const listed = await call(listTokensRoute, { path: "/api/v1/tokens", headers: asCookie(admin.cookie) });
    expect(listed.body.tokens.find((t: any) => t.id === id).state).toBe("expired");
  });

  it("last used is coarse: written on first use, then at most once a minute", async () => {
    const { id, token } = await createApiToken(`coarse-${newTag()}`, "owner", "system:test");
    const lastUsed = async () => (await sql(`SELECT last_used_at FROM api_tokens WHERE id = $1`, [id]))[0].last_used_at;
    expect(await lastUsed()).toBeNull();
    await reviewsStatus({ token });
    const first = await lastUsed();
    expect(first).not.toBeNull();
    await reviewsStatus({ token });
    expect(await lastUsed()).toEqual(first);
    await sql(`UPDATE api_tokens SET last_used_at = now() - interval '61 seconds' WHERE id = $1`, [id]);
    const old = await lastUsed();
    await reviewsStatus({ token });
    expect((await lastUsed()).getTime()).toBeGreaterThan(old.getTime());
  });

  it("a working token's name is taken until it is revoked", async () => {
    const admin = await signedIn("admin");
    const name = `unique-${newTag()}`;
    const body = { name, role: "consumer", expiresInDays: null, reason: "a worker" };
    const first = await call(issueRoute, { path: "/api/v1/tokens", headers: asCookie(admin.cookie), body });
    expect(first.status).toBe(201);
    const second = await call(issueRoute, { path: "/api/v1/tokens", headers: asCookie(admin.cookie), body });
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe("name-taken");
    await call(revokeRoute, {
      path: `/api/v1/tokens/${first.body.token.id}/revoke`,
      params: { tokenId: first.body.token.id },
      headers: asCookie(admin.cookie),
      body: { reason: "replaced" },
    });
    const third = await call(issueRoute, { path: "/api/v1/tokens", headers: asCookie(admin.cookie), body });
    expect(third.status).toBe(201);
  });

  it("only admins manage tokens and people; the refusal is logged; a reason is required", async () => {
    const owner = await signedIn("owner");
    for (const [handler, path] of [
      [listTokensRoute, "/api/v1/tokens"],
      [listPeople, "/api/v1/people"],
    ] as const) {
      const res = await call(handler, { path, headers: asCookie(owner.cookie) });
      expect(res.status, path).toBe(403);
    }
    const refusals = await sql(
      `SELECT details FROM decision_log WHERE action = 'authorization.refused' AND actor = $1`,
      [`user:${owner.email}`],
    );
    expect(refusals.length).toBeGreaterThan(0);

    const admin = await signedIn("admin");
    const noReason = await call(issueRoute, {
      path: "/api/v1/tokens",
      headers: asCookie(admin.cookie),
      body: { name: `x-${newTag()}`, role: "owner", expiresInDays: null, reason: " " },
    });
    expect(noReason.status).toBe(400);
    expect(noReason.body.error.issues).toEqual([{ path: "reason", message: "a reason is required" }]);
  });
});

describe("people", () => {
  it("an invited person sets a password through the one-time link, which works once", async () => {
    const admin = await signedIn("admin");
    const email = `invited-${newTag()}@test.local`;
    const invited = await call(invite, {
      path: "/api/v1/people",
      headers: asCookie(admin.cookie),
      body: { email, role: "support", reason: "joins the support rota" },
    });
    expect(invited.status, JSON.stringify(invited.body)).toBe(201);
    expect(invited.body.person).toMatchObject({ email, role: "support", state: "invited", openSessions: 0 });
    const url = new URL(invited.body.link.url);
    expect(url.origin).toBe("http://localhost");
    expect(url.pathname).toBe("/set-password");
    const token = url.searchParams.get("token")!;
    // Stored as its hash only.
    expect(JSON.stringify(await sql(`SELECT identifier, value FROM verifications`))).not.toContain(token);
    expect(await entriesOf("user.created", "email", email)).toEqual([
      {
        actor: `user:${admin.email}`,
        actor_role: "admin",
        action: "user.created",
        reason: "joins the support rota",
        details: { userId: invited.body.person.id, email, role: "support", invited: true },
      },
    ]);

    const password = "a long new password 1";
    expect((await signIn(email, password)).status).toBe(401);
    const set = await authRequest("POST", "/reset-password", undefined, { token, newPassword: password });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const answer = await signIn(email, password);
    expect(answer.status).toBe(200);
    expect(await reviewsStatus({ cookie: answer.cookie! })).toBe(200);
    const reused = await authRequest("POST", "/reset-password", undefined, {
      token,
      newPassword: "another password 22",
    });
    expect(reused.status).toBe(400);
    expect(await entriesOf("user.password-set", "email", email)).toHaveLength(1);
  });

  it("disabling a person ends their session at once (the old cookie is a 401) and refuses their sign-in; enabling lets them back", async () => {
    const admin = await signedIn("admin");
    const person = await signedIn("owner");
    expect(await reviewsStatus({ cookie: person.cookie })).toBe(200);
    const disabled = await call(disableRoute, {
      path: `/api/v1/people/${person.id}/disable`,
      params: { userId: person.id },
      headers: asCookie(admin.cookie),
      body: { reason: "left the company" },
    });
    expect(disabled.status, JSON.stringify(disabled.body)).toBe(200);
    expect(disabled.body).toMatchObject({
      person: { state: "disabled", disabledReason: "left the company", openSessions: 0 },
      sessionsEnded: 1,
    });
    expect(await reviewsStatus({ cookie: person.cookie })).toBe(401);
    const refused = await signIn(person.email, person.password);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: "BANNED_USER", message: "This account is disabled. Ask an admin." });
    expect(refused.cookie).toBeNull();
    expect(await entriesOf("user.disabled", "userId", person.id)).toEqual([
      expect.objectContaining({ actor: `user:${admin.email}`, reason: "left the company" }),
    ]);

    const enabled = await call(enableRoute, {
      path: `/api/v1/people/${person.id}/enable`,
      params: { userId: person.id },
      headers: asCookie(admin.cookie),
      body: { reason: "came back" },
    });
    expect(enabled.status).toBe(200);
    expect(enabled.body.person.state).toBe("active");
    expect((await signIn(person.email, person.password)).status).toBe(200);
  });

  it("changing a person's role ends their sessions; they sign in again with the new role", async () => {
    const admin = await signedIn("admin");
    const person = await signedIn("owner");
    const changed = await call(roleRoute, {
      path: `/api/v1/people/${person.id}/role`,
      params: { userId: person.id },
      headers: asCookie(admin.cookie),
      body: { role: "auditor", reason: "moved to compliance" },
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body).toMatchObject({ person: { role: "auditor" }, sessionsEnded: 1 });
    expect(await reviewsStatus({ cookie: person.cookie })).toBe(401);
    const again = await signIn(person.email, person.password);
    expect(again.body.user.role).toBe("auditor");
    expect(await entriesOf("user.role-changed", "userId", person.id)).toEqual([
      expect.objectContaining({
        reason: "moved to compliance",
        details: expect.objectContaining({ from: "owner", to: "auditor", sessionsEnded: 1 }),
      }),
    ]);
  });

  it("an admin may not disable themselves or change their own role, and still may not resolve records", async () => {
    const admin = await signedIn("admin");
    for (const [handler, tail, body] of [
      [disableRoute, "disable", { reason: "oops" }],
      [roleRoute, "role", { role: "owner", reason: "oops" }],
    ] as const) {
      const res = await call(handler, {
        path: `/api/v1/people/${admin.id}/${tail}`,
        params: { userId: admin.id },
        headers: asCookie(admin.cookie),
        body,
      });
      expect(res.status, tail).toBe(422);
      expect(res.body.error.code).toBe("own-account");
    }
    const recordId = (await reportGaps([envelope("people.test", `k-${newTag()}`, 2)], `adm-${newTag()}`))[0]!;
    const replay = await call(actionRoute, {
      path: `/api/v1/reviews/${recordId}/actions`,
      params: { id: recordId },
      headers: asCookie(admin.cookie),
      body: { action: "replay", expectedVersion: 1, reason: "trying", checkDone: true },
    });
    expect(replay.status).toBe(403);
  });

  it("a password reset stops the old password and ends sessions; the new link sets another", async () => {
    const admin = await signedIn("admin");
    const person = await signedIn("support");
    const reset = await call(passwordLinkRoute, {
      path: `/api/v1/people/${person.id}/password-link`,
      params: { userId: person.id },
      headers: asCookie(admin.cookie),
      body: { reason: "forgot it" },
    });
    expect(reset.status, JSON.stringify(reset.body)).toBe(200);
    expect(reset.body).toMatchObject({ person: { state: "invited" }, sessionsEnded: 1 });
    expect(await reviewsStatus({ cookie: person.cookie })).toBe(401);
    expect((await signIn(person.email, person.password)).status).toBe(401);
    const token = new URL(reset.body.link.url).searchParams.get("token")!;
    const set = await authRequest("POST", "/reset-password", undefined, { token, newPassword: "quite another one 3" });
    expect(set.status).toBe(200);
    expect((await signIn(person.email, "quite another one 3")).status).toBe(200);
  });

  it("lists people with their state and open sessions", async () => {
    const admin = await signedIn("admin");
    const listed = await call(listPeople, { path: "/api/v1/people", headers: asCookie(admin.cookie) });
    expect(listed.status).toBe(200);
    expect(listed.body.people.find((p: any) => p.id === admin.id)).toMatchObject({
      email: admin.email,
      role: "admin",
      state: "active",
      openSessions: 1,
      disabledReason: null,
    });
  });
});

describe("session tokens stay out of answers", () => {
  it("get-session and list-sessions carry no session token; neither does the sign-in answer", async () => {
    const person = await createPerson("owner");
    const answer = await signIn(person.email, person.password);
    expect(answer.status).toBe(200);
    expect(answer.body).not.toHaveProperty("token");
    const rawToken = answer.cookie!.split("=")[1]!.split(".")[0]!;
    expect(JSON.stringify(answer.body)).not.toContain(rawToken);

    const session = await authRequest("GET", "/get-session", answer.cookie!);
    expect(session.status).toBe(200);
    expect(session.body.user.email).toBe(person.email);
    expect(session.body.session.userId).toBe(person.id);
    expect(session.body.session).not.toHaveProperty("token");
    expect(JSON.stringify(session.body)).not.toContain(rawToken);

    const sessions = await authRequest("GET", "/list-sessions", answer.cookie!);
    expect(sessions.status).toBe(200);
    expect(sessions.body).toHaveLength(1);
    expect(sessions.body[0]).not.toHaveProperty("token");
    expect(JSON.stringify(sessions.body)).not.toContain(rawToken);
  });

  it("the admin plugin's endpoints and the request for a password link are not served over HTTP", async () => {
    const admin = await signedIn("admin");
    const target = await createPerson("owner");
    for (const [path, body] of [
      ["/admin/ban-user", { userId: target.id }],
      ["/admin/set-role", { userId: target.id, role: "admin" }],
      ["/admin/impersonate-user", { userId: target.id }],
      ["/admin/create-user", { email: `x-${newTag()}@test.local`, name: "x", password: "long enough password" }],
      ["/request-password-reset", { email: target.email }],
    ] as const) {
      const res = await authRequest("POST", path, admin.cookie, body);
      expect(res.status, path).toBe(404);
    }
    expect((await authRequest("GET", "/admin/list-users", admin.cookie)).status).toBe(404);
    const [row] = await sql(`SELECT role::text, banned FROM users WHERE id = $1`, [target.id]);
    expect(row).toEqual({ role: "owner", banned: false });
  });
});

describe("what runs on someone's authority pauses when they lose the permission", () => {
  /** Held gap records of a kind of the test's own; `ready` ones have their predecessor applied. */
  async function records(n: number, ready = false) {
    const tag = newTag();
    const kind = `people.${tag}`;
    const keys = Array.from({ length: n }, (_, i) => `pt-${tag}-${i}`);
    if (ready)
      await sql(`INSERT INTO sequence_state (sequence_key, last_sequence) SELECT k, 1 FROM unnest($1::text[]) k`, [
        keys,
      ]);
    const ids = await reportGaps(
      keys.map((k) => envelope(kind, k, 2)),
      `pt-${tag}`,
    );
    return { kind, ids };
  }

  /** A replay operation started (created, dry-run, confirmed) with this cookie or token; runAt keeps it from dispatching. */
  async function startOperation(credential: { cookie?: string; token?: string }, ids: string[], action = "replay") {
    const auth = { token: credential.token, headers: credential.cookie ? asCookie(credential.cookie) : undefined };
    const created = await call(createOperationRoute, {
      ...auth,
      path: "/api/v1/operations",
      body: { action, reason: "incident 7: replay the held reminders", selection: { type: "ids", ids } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    const dry = await call(dryRunRoute, {
      ...auth,
      path: `/api/v1/operations/${id}/dry-run`,
      params: { operationId: id },
      body: {},
    });
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    const confirmed = await call(confirmRoute, {
      ...auth,
      path: `/api/v1/operations/${id}/confirm`,
      params: { operationId: id },
      body: { expectedVersion: dry.body.version, dryRunAt: dry.body.dryRun.at, checkDone: true },
    });
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    return id;
  }

  const operationRow = async (id: string) =>
    (await sql(`SELECT state::text, pause_reason, authority_actor FROM bulk_operations WHERE id = $1`, [id]))[0];

  it("an operation whose creator is demoted pauses with the reason, in its state and the decision log; a note operation goes on", async () => {
    const admin = await signedIn("admin");
    const owner = await signedIn("owner");
    const { ids } = await records(2);
    const replay = await startOperation({ cookie: owner.cookie }, ids);
    const note = await startOperation({ cookie: owner.cookie }, ids, "note");
    expect(await operationRow(replay)).toMatchObject({ state: "running", authority_actor: `user:${owner.id}` });

    const demoted = await call(roleRoute, {
      path: `/api/v1/people/${owner.id}/role`,
      params: { userId: owner.id },
      headers: asCookie(admin.cookie),
      body: { role: "support", reason: "now answers provider questions only" },
    });
    expect(demoted.status, JSON.stringify(demoted.body)).toBe(200);
    expect(demoted.body.paused).toEqual({ operations: [replay], kinds: [] });

    const expected =
      `paused: user:${owner.email} now has the role support, which may not reviews.resolve ` +
      `(user:${admin.email} changed their role from owner to support: now answers provider questions only)`;
    expect(await operationRow(replay)).toMatchObject({ state: "paused", pause_reason: expected });
    expect(await operationRow(note)).toMatchObject({ state: "running" });
    expect(await entriesOf("operation.paused", "operationId", replay)).toEqual([
      {
        actor: "system:operations",
        actor_role: null,
        action: "operation.paused",
        reason: expected,
        details: { operationId: replay, fromState: "running", rule: "authority-lost" },
      },
    ]);
    expect((await dispatchStep(replay)).type).toBe("idle");
    expect((await sql(`SELECT count(*)::int AS n FROM replays WHERE operation_id = $1`, [replay]))[0].n).toBe(0);

    // Another owner resumes it: it goes on, on their authority.
    const other = await signedIn("owner");
    const resumed = await call(resumeRoute, {
      path: `/api/v1/operations/${replay}/resume`,
      params: { operationId: replay },
      headers: asCookie(other.cookie),
      body: { reason: "still needed; I take it over" },
    });
    expect(resumed.status, JSON.stringify(resumed.body)).toBe(200);
    expect(await operationRow(replay)).toMatchObject({ state: "running", authority_actor: `user:${other.id}` });
  });

  it("disabling a person pauses their running operations and the automatic replay they turned on", async () => {
    const admin = await signedIn("admin");
    const owner = await signedIn("owner");
    const { ids } = await records(1);
    const operation = await startOperation({ cookie: owner.cookie }, ids);
    const { kind } = await records(1, true);
    const on = await call(autoReplayRoute, {
      path: `/api/v1/operations/auto-replay/${kind}`,
      params: { kind },
      headers: asCookie(owner.cookie),
      body: { enabled: true, reason: "predecessors arrive on their own now" },
      method: "PUT",
    });
    expect(on.status, JSON.stringify(on.body)).toBe(200);

    const disabled = await call(disableRoute, {
      path: `/api/v1/people/${owner.id}/disable`,
      params: { userId: owner.id },
      headers: asCookie(admin.cookie),
      body: { reason: "account compromised" },
    });
    expect(disabled.status).toBe(200);
    expect(disabled.body.paused).toEqual({ operations: [operation], kinds: [kind] });
    expect((await operationRow(operation)).pause_reason).toBe(
      `paused: user:${owner.email} was disabled (user:${admin.email} disabled them: account compromised)`,
    );
    const setting = (await listAutoReplaySettings()).find((k) => k.kind === kind)!;
    expect(setting).toMatchObject({ autoReplayReady: true, ready: 1 });
    expect(setting.pausedReason).toContain(`user:${owner.email} was disabled`);
    expect(await entriesOf("kind.auto-replay-paused", "kind", kind)).toHaveLength(1);
    expect(await autoReplayReady()).toBe(0);

    // Another owner turns it on again: it replays, on their authority.
    const other = await signedIn("owner");
    await call(autoReplayRoute, {
      path: `/api/v1/operations/auto-replay/${kind}`,
      params: { kind },
      headers: asCookie(other.cookie),
      body: { enabled: true, reason: "keep it going" },
      method: "PUT",
    });
    expect((await listAutoReplaySettings()).find((k) => k.kind === kind)!.pausedReason).toBeNull();
    expect(await autoReplayReady()).toBe(1);
  });

  it("revoking a token pauses what it started; a token that merely expired is caught by the dispatcher", async () => {
    const admin = await signedIn("admin");
    const revokedToken = await createApiToken(`ops-${newTag()}`, "owner", "system:test");
    const expiringToken = await createApiToken(`ops-${newTag()}`, "owner", "system:test");
    const first = await startOperation({ token: revokedToken.token }, (await records(1)).ids);
    const second = await startOperation({ token: expiringToken.token }, (await records(1)).ids);

    const revoked = await call(revokeRoute, {
      path: `/api/v1/tokens/${revokedToken.id}/revoke`,
      params: { tokenId: revokedToken.id },
      headers: asCookie(admin.cookie),
      body: { reason: "leaked in a log" },
    });
    expect(revoked.body.paused).toEqual({ operations: [first], kinds: [] });
    expect((await operationRow(first)).pause_reason).toMatch(/^paused: token:ops-\w+ was revoked \(user:/);

    await sql(`UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1`, [expiringToken.id]);
    expect((await dispatchStep(second)).type).toBe("idle");
    const row = await operationRow(second);
    expect(row.state).toBe("paused");
    expect(row.pause_reason).toMatch(/^paused: token:ops-\w+ has expired$/);
    expect(await entriesOf("operation.paused", "operationId", second)).toHaveLength(1);
  });
});
