import { describe, expect, it } from "vitest";
import {
  ConfigError,
  grantsForGroups,
  groupsFromClaims,
  oidcConfig,
  parseGroupGrants,
  passwordSignInEnabled,
  signInProblems,
} from "./oidc-config";

const complete = {
  OIDC_ISSUER: "https://idp.example.test/realms/rc",
  OIDC_CLIENT_ID: "review-console",
  OIDC_CLIENT_SECRET: "s3cret",
  OIDC_GROUP_GRANTS: "rc-payments-owners=owner@payments,rc-auditors=auditor",
  BETTER_AUTH_URL: "https://console.example.test/",
};

function settingOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error.setting;
    throw error;
  }
  return undefined;
}

describe("parseGroupGrants", () => {
  it("maps groups to a role in a domain, or everywhere without @domain", () => {
    const map = parseGroupGrants(
      " rc-payments-owners = owner@payments , rc-auditors=auditor,rc-auditors=support@cards ",
    );
    expect([...map.entries()]).toEqual([
      ["rc-payments-owners", [{ role: "owner", domain: "payments" }]],
      [
        "rc-auditors",
        [
          { role: "auditor", domain: null },
          { role: "support", domain: "cards" },
        ],
      ],
    ]);
  });

  it.each([
    ["", "maps no group"],
    ["rc-x", "is not group=role"],
    ["=owner", "is not group=role"],
    ["rc-x=", "is not group=role"],
    ["rc-x=consumer", "not a role of people"],
    ["rc-x=boss@payments", "not a role of people"],
    ["rc-x=owner@Payments!", "not a domain name"],
    ["rc-x=owner@", "not a domain name"],
    ["rc-x=owner@payments,rc-admins=admin@payments", '"rc-admins=admin@payments": admin is held in every domain'],
  ])("refuses %j, naming OIDC_GROUP_GRANTS", (text, message) => {
    expect(() => parseGroupGrants(text)).toThrow(message);
    expect(settingOf(() => parseGroupGrants(text))).toBe("OIDC_GROUP_GRANTS");
  });
});

describe("oidcConfig", () => {
  it("is null without OIDC_ISSUER", () => {
    expect(oidcConfig({})).toBeNull();
  });

  it("reads every setting, with defaults for the label, the groups claim and the scopes", () => {
    const config = oidcConfig(complete)!;
    expect(config.discoveryUrl).toBe("https://idp.example.test/realms/rc/.well-known/openid-configuration");
    expect(config.redirectURI).toBe("https://console.example.test/api/auth/callback/oidc");
    expect(config.providerName).toBe("single sign-on");
    expect(config.groupsClaim).toBe("groups");
    expect(config.scopes).toEqual(["openid", "email", "profile"]);
    const custom = oidcConfig({
      ...complete,
      OIDC_PROVIDER_NAME: "Acme",
      OIDC_GROUPS_CLAIM: "roles",
      OIDC_SCOPES: "email groups",
    })!;
    expect([custom.providerName, custom.groupsClaim, custom.scopes]).toEqual([
      "Acme",
      "roles",
      ["openid", "email", "groups"],
    ]);
  });

  it.each([
    [{ ...complete, OIDC_ISSUER: "not a url" }, "OIDC_ISSUER"],
    [{ ...complete, OIDC_ISSUER: "http://idp.example.test" }, "OIDC_ISSUER"],
    [{ ...complete, OIDC_CLIENT_ID: " " }, "OIDC_CLIENT_ID"],
    [{ ...complete, OIDC_CLIENT_SECRET: undefined }, "OIDC_CLIENT_SECRET"],
    [{ ...complete, OIDC_GROUP_GRANTS: undefined }, "OIDC_GROUP_GRANTS"],
    [{ ...complete, OIDC_GROUP_GRANTS: "a=root" }, "OIDC_GROUP_GRANTS"],
    [{ ...complete, BETTER_AUTH_URL: undefined }, "BETTER_AUTH_URL"],
    [{ ...complete, BETTER_AUTH_URL: "console.example.test" }, "BETTER_AUTH_URL"],
    [{ ...complete, BETTER_AUTH_URL: "ftp://console.example.test" }, "BETTER_AUTH_URL"],
    [{ OIDC_CLIENT_ID: "x" }, "OIDC_ISSUER"],
  ])("names the bad setting (%#)", (env, setting) => {
    expect(settingOf(() => oidcConfig(env))).toBe(setting);
  });

  it("accepts plain http on a loopback address only", () => {
    expect(oidcConfig({ ...complete, OIDC_ISSUER: "http://127.0.0.1:4000" })?.issuer).toBe("http://127.0.0.1:4000");
  });
});

describe("passwordSignInEnabled", () => {
  it("is on by default and off only with single sign-on configured", () => {
    expect(passwordSignInEnabled({})).toBe(true);
    expect(passwordSignInEnabled({ PASSWORD_SIGN_IN: "on" })).toBe(true);
    expect(passwordSignInEnabled({ ...complete, PASSWORD_SIGN_IN: "OFF" })).toBe(false);
    expect(settingOf(() => passwordSignInEnabled({ PASSWORD_SIGN_IN: "off" }))).toBe("PASSWORD_SIGN_IN");
    expect(settingOf(() => passwordSignInEnabled({ ...complete, PASSWORD_SIGN_IN: "no" }))).toBe("PASSWORD_SIGN_IN");
  });

  it("signInProblems checks both, naming each variable", () => {
    expect(signInProblems({ ...complete, PASSWORD_SIGN_IN: "off" })).toEqual([]);
    const variables = (env: Record<string, string>) => signInProblems(env).map((p) => p.variable);
    expect(variables({ ...complete, OIDC_GROUP_GRANTS: "x" })).toEqual(["OIDC_GROUP_GRANTS"]);
    expect(variables({ OIDC_CLIENT_ID: "x", PASSWORD_SIGN_IN: "maybe" })).toEqual(["OIDC_ISSUER", "PASSWORD_SIGN_IN"]);
    // An admin of one domain, which the API and the CLI refuse to grant, stops the start too.
    expect(signInProblems({ ...complete, OIDC_GROUP_GRANTS: "rc-pay-admins=admin@payments" })[0]?.problem).toMatch(
      /^"rc-pay-admins=admin@payments": admin is held in every domain/,
    );
  });
});

describe("groups to grants", () => {
  const map = parseGroupGrants(complete.OIDC_GROUP_GRANTS + ",rc-all=auditor");

  it("collects the grants of the known groups, once each", () => {
    expect(grantsForGroups(["x", "rc-auditors", "rc-payments-owners", "rc-all"], map)).toEqual([
      { role: "auditor", domain: null },
      { role: "owner", domain: "payments" },
    ]);
    expect(grantsForGroups(["nothing"], map)).toEqual([]);
  });

  it("reads the claim as a list, a single string, or nothing", () => {
    expect(groupsFromClaims({ groups: ["a", 3, "b"] }, "groups")).toEqual(["a", "b"]);
    expect(groupsFromClaims({ roles: "a" }, "roles")).toEqual(["a"]);
    expect(groupsFromClaims({ groups: { a: 1 } }, "groups")).toEqual([]);
    expect(groupsFromClaims({}, "groups")).toEqual([]);
  });
});
