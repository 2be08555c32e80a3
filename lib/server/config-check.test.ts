import { describe, expect, it } from "vitest";
import { startProblems } from "./config-check";

const oidc = {
  OIDC_ISSUER: "https://idp.example.test/realms/rc",
  OIDC_CLIENT_ID: "review-console",
  OIDC_CLIENT_SECRET: "s3cret",
  OIDC_GROUP_GRANTS: "rc-auditors=auditor",
  BETTER_AUTH_URL: "https://console.example.test",
};

/** The lines the start's check prints for `env`. */
function problemsOf(env: Record<string, string | undefined>): string[] {
  return startProblems(env).map((p) => `${p.variable}: ${p.problem}`);
}

describe("startProblems: every variable, then the sign-in rules that join several", () => {
  it("finds nothing in a good configuration, with or without single sign-on", () => {
    expect(problemsOf({})).toEqual([]);
    expect(problemsOf({ ...oidc, PASSWORD_SIGN_IN: "off", OIDC_SCOPES: "" })).toEqual([]);
    // A blank value is unset for the sign-in rules too (compose passes ${NAME:-} as "").
    expect(problemsOf({ OIDC_ISSUER: " ", OIDC_CLIENT_ID: "", PASSWORD_SIGN_IN: "" })).toEqual([]);
  });

  it("applies the single sign-on rules, naming each variable", () => {
    expect(problemsOf({ PASSWORD_SIGN_IN: "off" })).toEqual([
      "PASSWORD_SIGN_IN: off needs OIDC_ISSUER: nobody could sign in",
    ]);
    expect(problemsOf({ OIDC_CLIENT_ID: "x" })).toEqual(["OIDC_ISSUER: is required when OIDC_CLIENT_ID is set"]);
    expect(problemsOf({ OIDC_ISSUER: "https://idp.example.test" })).toEqual([
      "OIDC_CLIENT_ID: is required when OIDC_ISSUER is set",
      "OIDC_CLIENT_SECRET: is required when OIDC_ISSUER is set",
      "BETTER_AUTH_URL: is required when OIDC_ISSUER is set",
      "OIDC_GROUP_GRANTS: is required when OIDC_ISSUER is set",
    ]);
    expect(problemsOf({ ...oidc, OIDC_GROUP_GRANTS: "rc-x=admin@payments" })[0]).toMatch(
      /^OIDC_GROUP_GRANTS: "rc-x=admin@payments": admin is held in every domain/,
    );
  });

  it("names every bad variable, once each", () => {
    const problems = startProblems({
      OPERATIONS_TICK_MS: "abc",
      PORT: "0",
      BETTER_AUTH_URL: "ftp://x",
      OIDC_ISSUER: "https://idp.example.test",
      OIDC_CLIENT_ID: "id",
      OIDC_CLIENT_SECRET: "secret",
      OIDC_GROUP_GRANTS: "g=owner",
    });
    expect(problems.map((p) => p.variable).sort()).toEqual(["BETTER_AUTH_URL", "OPERATIONS_TICK_MS", "PORT"]);
  });
});
