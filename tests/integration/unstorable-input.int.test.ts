/**
 * Client input that once answered a bare 500, each now a 400 naming the field that writes nothing:
 * a payload nested 100,000 deep, a lone surrogate or NUL in a payload, a lone surrogate in
 * providerRef (and the same in other bodies stored as they come). The undecodable path
 * (`PUT /api/v1/operations/auto-replay/%ED%A0%80`) never reaches a handler: the proxy answers it,
 * see tests/integration/security-headers.int.test.ts.
 */
import { describe, expect, it } from "vitest";
import { POST as act } from "@/app/api/v1/reviews/[id]/actions/route";
import { POST as report } from "@/app/api/v1/reviews/route";
import { PUT as autoReplay } from "@/app/api/v1/operations/auto-replay/[kind]/route";
import { call, tokenFor } from "../support/http";
import { setupTestDatabase, withClient } from "../support/database";

const database = setupTestDatabase();

async function footprint() {
  return withClient(database.current.url, async (c) => {
    const { rows } = await c.query(`SELECT
      (SELECT coalesce(sum(version), 0) FROM review_records)::int AS versions,
      (SELECT count(*) FROM review_history)::int AS history,
      (SELECT count(*) FROM review_revisions)::int AS revisions,
      (SELECT count(*) FROM replays)::int AS replays,
      (SELECT count(*) FROM effect_journal)::int AS journal,
      (SELECT count(*) FROM kind_settings)::int AS kinds,
      (SELECT count(*) FROM decision_log)::int AS log`);
    return rows[0];
  });
}

async function record(category: "manual-review" | "effect-result-unknown"): Promise<string> {
  const tag = Math.random().toString(36).slice(2, 10);
  const created = await call(report, {
    token: await tokenFor("consumer"),
    body: {
      category,
      reason: category === "manual-review" ? "invalid-payload" : category,
      requiredCheck: "look",
      attempts: 1,
      message: {
        id: `m-${tag}`,
        kind: "invoice.reminder",
        effectKey: `e-${tag}`,
        sequenceKey: `s-${tag}`,
        sequence: 1,
        payload: { schema: "2021-03", invoiceId: tag },
      },
    },
  });
  expect(created.status).toBe(201);
  return created.body.id;
}

const payload = (extra: string) => `{"schema":"2021-03","invoiceId":"1"${extra}}`;
const correct = (p: string) =>
  `{"action":"correct-and-replay","expectedVersion":1,"reason":"fix","checkDone":true,"payload":${p}}`;
const confirm = (ref: string) =>
  `{"action":"confirm-applied","expectedVersion":1,"reason":"asked","checkDone":true,"providerRef":${ref}}`;

describe("POST /api/v1/reviews/{id}/actions: what PostgreSQL cannot store is a 400 naming the field", () => {
  const cases: [string, "manual-review" | "effect-result-unknown", string, RegExp][] = [
    [
      "a payload nested 100,000 deep",
      "manual-review",
      correct(payload(`,"x":${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)}`)),
      /^payload\.x(\.a)+: nests deeper than 64 levels$/,
    ],
    [
      "a lone surrogate in the payload",
      "manual-review",
      correct(payload(`,"a":"\\ud800"`)),
      /^payload\.a: contains a string with an unpaired/,
    ],
    ["a NUL in the payload", "manual-review", correct(payload(`,"a":"x\\u0000"`)), /^payload\.a: must not contain NUL/],
    [
      "a NUL in a payload key",
      "manual-review",
      correct(payload(`,"\\u0000":"a"`)),
      /^payload: contains a key with a NUL/,
    ],
    [
      "a lone surrogate in providerRef",
      "effect-result-unknown",
      confirm(`"ref-\\udc00"`),
      /^providerRef: contains a string with an unpaired/,
    ],
    ["a NUL in providerRef", "effect-result-unknown", confirm(`"ref-\\u0000"`), /^providerRef: must not contain NUL/],
    [
      "a lone surrogate in the reason",
      "manual-review",
      `{"action":"note","expectedVersion":1,"reason":"\\ud800"}`,
      /^reason: contains a string/,
    ],
  ];

  it.each(cases)("%s", async (_, category, rawBody, message) => {
    const id = await record(category);
    const owner = await tokenFor("owner");
    const before = await footprint();
    const answer = await call(act, {
      token: owner,
      params: { id },
      path: `/api/v1/reviews/${id}/actions`,
      rawBody,
    });
    expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(400);
    expect(answer.body.error.code).toBe("invalid-request");
    expect(answer.body.error.message).toMatch(message);
    expect(answer.body.error.issues[0].path).toBe(answer.body.error.message.split(":")[0]);
    expect(await footprint()).toEqual(before);
  });

  it("the same bodies without the bad character are accepted", async () => {
    const id = await record("manual-review");
    const answer = await call(act, {
      token: await tokenFor("owner"),
      params: { id },
      path: `/api/v1/reviews/${id}/actions`,
      rawBody: correct(payload(`,"a":"Zoë 🧾"`)),
    });
    expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(200);
  });
});

describe("other stored bodies", () => {
  it("PUT /api/v1/operations/auto-replay/{kind}: an undecodable kind or a bad reason is a 400 naming it", async () => {
    const owner = await tokenFor("owner");
    const before = await footprint();
    const badKind = await call(autoReplay, {
      token: owner,
      method: "PUT",
      path: "/api/v1/operations/auto-replay/%ED%A0%80",
      params: { kind: "%ED%A0%80" },
      body: { enabled: true, reason: "x" },
    });
    expect(badKind.status).toBe(400);
    expect(badKind.body.error.issues[0].path).toBe("kind");
    const badReason = await call(autoReplay, {
      token: owner,
      method: "PUT",
      path: "/api/v1/operations/auto-replay/invoice.reminder",
      params: { kind: "invoice.reminder" },
      rawBody: `{"enabled":true,"reason":"ok \\udbff"}`,
    });
    expect(badReason.status).toBe(400);
    expect(badReason.body.error.issues[0].path).toBe("reason");
    expect(await footprint()).toEqual(before);
  });
});
