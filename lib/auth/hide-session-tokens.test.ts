import { describe, expect, it } from "vitest";
import { withoutSessionTokens } from "./hide-session-tokens";

describe("withoutSessionTokens", () => {
  it("takes the token out of get-session, list-sessions and sign-in answers, and nothing else", () => {
    expect(
      withoutSessionTokens({ session: { id: "s", token: "secret", userId: "u" }, user: { id: "u", email: "a@b" } }),
    ).toEqual({ session: { id: "s", userId: "u" }, user: { id: "u", email: "a@b" } });
    expect(
      withoutSessionTokens([
        { id: "1", token: "a" },
        { id: "2", token: "b" },
      ]),
    ).toEqual([{ id: "1" }, { id: "2" }]);
    expect(withoutSessionTokens({ redirect: false, token: "secret", user: { id: "u" } })).toEqual({
      redirect: false,
      user: { id: "u" },
    });
  });

  it("returns answers without tokens as they are", () => {
    const plain = { status: true };
    expect(withoutSessionTokens(plain)).toBe(plain);
    const list = [{ id: "1" }];
    expect(withoutSessionTokens(list)).toBe(list);
    expect(withoutSessionTokens(null)).toBeNull();
  });
});
