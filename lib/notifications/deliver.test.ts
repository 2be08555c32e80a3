import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { requestOf, retryDelayMs } from "./deliver";
import { newEndpointSecret, openSecret, sealSecret } from "./secret-box";
import { slackPayload } from "./slack";

beforeAll(() => {
  vi.stubEnv("BETTER_AUTH_SECRET", "a-test-secret-of-at-least-thirty-two-characters");
});
afterAll(() => {
  vi.unstubAllEnvs();
});

describe("retryDelayMs", () => {
  const options = { baseDelayMs: 1_000, maxDelayMs: 10_000 };
  it("doubles from the base, is capped, and is jittered between half and all of it", () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => retryDelayMs(n, options, () => 1))).toEqual([
      1_000, 2_000, 4_000, 8_000, 10_000, 10_000,
    ]);
    expect(retryDelayMs(3, options, () => 0)).toBe(2_000);
  });
});

describe("the secret box", () => {
  it("gives back the secret it sealed, and refuses one sealed under another key", () => {
    const secret = newEndpointSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const sealed = sealSecret(secret);
    expect(sealed).not.toContain(secret.slice(6));
    expect(openSecret(sealed)).toBe(secret);
    vi.stubEnv("BETTER_AUTH_SECRET", "another-secret-of-at-least-thirty-two-characters");
    expect(() => openSecret(sealed)).toThrow();
    vi.stubEnv("BETTER_AUTH_SECRET", "a-test-secret-of-at-least-thirty-two-characters");
  });
});

describe("requestOf", () => {
  const payload = {
    type: "operation.finished",
    timestamp: "2026-12-02T05:00:00.000Z",
    data: { operationId: "o<1>", outcome: "completed" },
  };
  it("signs a standard delivery so that Webhook.verify accepts it with the secret", () => {
    const secret = newEndpointSecret();
    const delivery = {
      id: "msg_1",
      endpointId: "e",
      url: "http://127.0.0.1/",
      format: "standard",
      secretSealed: sealSecret(secret),
      payload,
      attempt: 1,
    };
    const { body, headers } = requestOf(delivery, new Date());
    expect(JSON.parse(body)).toEqual(payload);
    expect(new Webhook(secret).verify(body, headers)).toEqual(payload);
    expect(() => new Webhook(newEndpointSecret()).verify(body, headers)).toThrow();
  });

  it("sends the Slack format unsigned, keeping webhook-id, with mrkdwn escaped", () => {
    const delivery = { id: "msg_2", endpointId: "e", url: "", format: "slack", secretSealed: "", payload, attempt: 1 };
    const { body, headers } = requestOf(delivery, new Date());
    expect(headers["webhook-id"]).toBe("msg_2");
    expect(headers["webhook-signature"]).toBeUndefined();
    expect(JSON.parse(body)).toEqual(slackPayload(payload));
    expect(JSON.parse(body).text).toBe("[Review Console] Operation o&lt;1&gt; completed");
  });
});
