import { afterEach, describe, expect, it, vi } from "vitest";
import { consoleIsHttps, servedOverHttps } from "@/lib/config/https";
import { API_POLICY, baseSecurityHeaders, newNonce, pagePolicy } from "./security-headers";

afterEach(() => vi.unstubAllEnvs());

describe("pagePolicy", () => {
  it("admits scripts by nonce only, never inline, and frames nothing", () => {
    const policy = pagePolicy("abc123==", { https: false });
    const directives = Object.fromEntries(
      policy.split("; ").map((d) => [d.split(" ")[0], d.split(" ").slice(1).join(" ")]),
    );
    expect(directives["script-src"]).toBe("'self' 'nonce-abc123==' 'strict-dynamic'");
    expect(directives["style-src"]).toBe("'self' 'nonce-abc123=='");
    expect(directives["frame-ancestors"]).toBe("'none'");
    expect(directives["object-src"]).toBe("'none'");
    expect(policy).not.toContain("unsafe-eval");
    expect(policy).not.toContain("upgrade-insecure-requests");
  });

  it("upgrades insecure requests over https; allows eval only under next dev", () => {
    expect(pagePolicy("n", { https: true })).toMatch(/; upgrade-insecure-requests$/);
    expect(pagePolicy("n", { https: false, dev: true })).toContain("'strict-dynamic' 'unsafe-eval'");
  });
});

describe("baseSecurityHeaders", () => {
  it("frames nothing, sniffs nothing, and pins https only when served over it", () => {
    const plain = baseSecurityHeaders({ https: false });
    expect(plain).toMatchObject({
      "x-frame-options": "DENY",
      "x-content-type-options": "nosniff",
      "referrer-policy": "same-origin",
    });
    expect(plain["permissions-policy"]).toContain("geolocation=()");
    expect(plain["strict-transport-security"]).toBeUndefined();
    expect(baseSecurityHeaders({ https: true })["strict-transport-security"]).toBe("max-age=31536000");
    expect(API_POLICY).toContain("default-src 'none'");
  });
});

describe("consoleIsHttps", () => {
  it("is BETTER_AUTH_URL's scheme, or the request's (X-Forwarded-Proto, else the URL)", () => {
    vi.stubEnv("BETTER_AUTH_URL", "");
    expect(consoleIsHttps(new Headers(), "http://127.0.0.1:3000/")).toBe(false);
    expect(consoleIsHttps(new Headers({ "x-forwarded-proto": "https" }), "http://127.0.0.1:3000/")).toBe(true);
    expect(servedOverHttps(new Headers({ "x-forwarded-proto": "http" }), "https://x/")).toBe(false);
    expect(consoleIsHttps(new Headers(), "https://console.example/")).toBe(true);
    vi.stubEnv("BETTER_AUTH_URL", "https://console.example");
    expect(consoleIsHttps(new Headers({ "x-forwarded-proto": "http" }), "http://10.0.0.5:3000/")).toBe(true);
  });
});

describe("newNonce", () => {
  it("is 128 random bits in base64, fresh each time", () => {
    const nonces = new Set(Array.from({ length: 100 }, newNonce));
    expect(nonces.size).toBe(100);
    for (const nonce of nonces) expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
  });
});
