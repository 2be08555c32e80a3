import { afterEach, describe, expect, it, vi } from "vitest";
import { config, ConfigError, configProblems, databaseUrl, loadConfig, VARIABLE_NAMES, VARIABLES } from "./index";

/** The lines of the ConfigError that loading `env` throws. */
function problemsOf(env: Record<string, string | undefined>): string[] {
  return configProblems(env).map((p) => `${p.variable}: ${p.problem}`);
}

describe("loadConfig: defaults", () => {
  it("gives every variable its default when nothing is set", () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      PORT: 3000,
      HOST: "127.0.0.1",
      MAX_BODY_BYTES: 1_048_576,
      DB_POOL_SIZE: 10,
      OPERATIONS_DISPATCHER: true,
      OPERATIONS_TICK_MS: 200,
      WEBHOOKS: true,
      WEBHOOK_TIMEOUT_MS: 5000,
      WEBHOOK_MAX_ATTEMPTS: 8,
      WEBHOOK_CONCURRENCY: 4,
      WEBHOOK_THRESHOLD_CHECK_MS: 30_000,
      INTAKE_FAST_PATH: true,
      PASSWORD_SIGN_IN: true,
      RETENTION_FINISHED_MONTHS: 12,
      TRUSTED_PROXIES: [],
      WEBHOOK_ALLOWED_NETWORKS: [],
    });
    for (const name of [
      "BETTER_AUTH_URL",
      "BETTER_AUTH_SECRET",
      "LOG_LEVEL",
      "ARCHIVE_DIR",
      "MIGRATION_DATABASE_URL",
    ]) {
      expect(c[name as keyof typeof c]).toBeUndefined();
    }
  });

  it("the notifier's defaults are the documented ones", async () => {
    const { DEFAULT_NOTIFIER_OPTIONS } = await import("@/lib/notifications/notifier");
    const c = loadConfig({});
    expect([c.WEBHOOK_TIMEOUT_MS, c.WEBHOOK_MAX_ATTEMPTS, c.WEBHOOK_CONCURRENCY, c.WEBHOOK_THRESHOLD_CHECK_MS]).toEqual(
      [
        DEFAULT_NOTIFIER_OPTIONS.timeoutMs,
        DEFAULT_NOTIFIER_OPTIONS.maxAttempts,
        DEFAULT_NOTIFIER_OPTIONS.concurrency,
        DEFAULT_NOTIFIER_OPTIONS.thresholdEveryMs,
      ],
    );
  });

  it("counts a blank value as unset (compose passes ${NAME:-} as an empty string)", () => {
    const c = loadConfig({ OPERATIONS_TICK_MS: "", BETTER_AUTH_URL: "  ", TRUSTED_PROXIES: "", PORT: "" });
    expect(c.OPERATIONS_TICK_MS).toBe(200);
    expect(c.BETTER_AUTH_URL).toBeUndefined();
    expect(c.TRUSTED_PROXIES).toEqual([]);
    expect(c.PORT).toBe(3000);
  });

  it("reads good values", () => {
    const c = loadConfig({
      OIDC_ISSUER: "https://idp.example.test/realms/rc",
      PORT: "8080",
      OPERATIONS_TICK_MS: " 50 ",
      WEBHOOKS: "OFF",
      OPERATIONS_DISPATCHER: "off",
      INTAKE_FAST_PATH: "On",
      LOG_LEVEL: "WARN",
      TRUSTED_PROXIES: "10.0.0.1, 192.168.0.0/16,::1",
      WEBHOOK_ALLOWED_NETWORKS: "10.20.0.0/16,::1/128",
      PASSWORD_SIGN_IN: "off",
      MIGRATION_DATABASE_URL: "postgresql://owner@db.example.test/rc",
    });
    expect(c).toMatchObject({
      PORT: 8080,
      OPERATIONS_TICK_MS: 50,
      WEBHOOKS: false,
      OPERATIONS_DISPATCHER: false,
      INTAKE_FAST_PATH: true,
      LOG_LEVEL: "warn",
      TRUSTED_PROXIES: ["10.0.0.1", "192.168.0.0/16", "::1"],
      WEBHOOK_ALLOWED_NETWORKS: ["10.20.0.0/16", "::1/128"],
      PASSWORD_SIGN_IN: false,
      MIGRATION_DATABASE_URL: "postgresql://owner@db.example.test/rc",
    });
    expect(c.OIDC_ISSUER).toBe("https://idp.example.test/realms/rc");
  });

  it("is frozen, and leaves DATABASE_URL to databaseUrl()", () => {
    const c = loadConfig({ DATABASE_URL: "postgres://app@db.example.test/rc" });
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.TRUSTED_PROXIES)).toBe(true);
    expect("DATABASE_URL" in c).toBe(false);
    expect(() => {
      (c as { PORT: number }).PORT = 1;
    }).toThrow(TypeError);
  });
});

describe("loadConfig: a bad value names its variable and says what is wrong", () => {
  it.each([
    ["OPERATIONS_TICK_MS", "abc", 'OPERATIONS_TICK_MS: expected a positive integer, got "abc"'],
    ["OPERATIONS_TICK_MS", "0", 'OPERATIONS_TICK_MS: expected a positive integer, got "0"'],
    ["OPERATIONS_TICK_MS", "-5", 'OPERATIONS_TICK_MS: expected a positive integer, got "-5"'],
    ["WEBHOOK_TIMEOUT_MS", "2.5", 'WEBHOOK_TIMEOUT_MS: expected a positive integer, got "2.5"'],
    ["WEBHOOK_MAX_ATTEMPTS", "1e3", 'WEBHOOK_MAX_ATTEMPTS: expected a positive integer, got "1e3"'],
    ["WEBHOOK_CONCURRENCY", "four", 'WEBHOOK_CONCURRENCY: expected a positive integer, got "four"'],
    ["WEBHOOK_THRESHOLD_CHECK_MS", "0x10", 'WEBHOOK_THRESHOLD_CHECK_MS: expected a positive integer, got "0x10"'],
    ["MAX_BODY_BYTES", "1MB", 'MAX_BODY_BYTES: expected a positive integer, got "1MB"'],
    ["DB_POOL_SIZE", "0", 'DB_POOL_SIZE: expected a positive integer, got "0"'],
    ["PORT", "70000", 'PORT: expected a port (1-65535), got "70000"'],
    ["PORT", "http", 'PORT: expected a port (1-65535), got "http"'],
    [
      "RETENTION_FINISHED_MONTHS",
      "0",
      'RETENTION_FINISHED_MONTHS: expected a whole number of months, at least 1, got "0"',
    ],
    ["OPERATIONS_DISPATCHER", "false", 'OPERATIONS_DISPATCHER: expected on or off, got "false"'],
    ["WEBHOOKS", "no", 'WEBHOOKS: expected on or off, got "no"'],
    ["INTAKE_FAST_PATH", "0", 'INTAKE_FAST_PATH: expected on or off, got "0"'],
    ["PASSWORD_SIGN_IN", "maybe", 'PASSWORD_SIGN_IN: expected on or off, got "maybe"'],
    [
      "LOG_LEVEL",
      "verbose",
      'LOG_LEVEL: expected one of fatal, error, warn, info, debug, trace, silent, got "verbose"',
    ],
    [
      "DATABASE_URL",
      "localhost:5432",
      'DATABASE_URL: expected a postgres:// or postgresql:// URL, got "localhost:5432"',
    ],
    [
      "MIGRATION_DATABASE_URL",
      "mysql://db/rc",
      'MIGRATION_DATABASE_URL: expected a postgres:// or postgresql:// URL, got "mysql://db/rc"',
    ],
    ["TEST_PG_SERVER_URL", "nope", 'TEST_PG_SERVER_URL: expected a postgres:// or postgresql:// URL, got "nope"'],
    ["BETTER_AUTH_URL", "console.example", 'BETTER_AUTH_URL: expected an http(s) URL, got "console.example"'],
    [
      "TRUSTED_PROXIES",
      "10.0.0.1,proxy.internal",
      'TRUSTED_PROXIES: "proxy.internal" is not an address or a CIDR range (10.0.0.0/8, ::1/128)',
    ],
    [
      "WEBHOOK_ALLOWED_NETWORKS",
      "10.0.0.0/33",
      'WEBHOOK_ALLOWED_NETWORKS: "10.0.0.0/33" is not an address or a CIDR range (10.0.0.0/8, ::1/128)',
    ],
  ])("%s=%j", (name, value, line) => {
    expect(problemsOf({ [name]: value })).toEqual([line]);
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
  });

  it("names every bad variable, once each", () => {
    let error: unknown;
    try {
      loadConfig({ OPERATIONS_TICK_MS: "abc", PORT: "0" });
    } catch (caught) {
      error = caught;
    }
    expect((error as Error).message).toBe(
      'PORT: expected a port (1-65535), got "0"\nOPERATIONS_TICK_MS: expected a positive integer, got "abc"',
    );
  });
});

describe("every variable", () => {
  it("has a one-line description", () => {
    for (const name of VARIABLE_NAMES) {
      const { description } = VARIABLES[name];
      expect(description.length, name).toBeGreaterThan(5);
      expect(description, name).not.toContain("\n");
    }
  });
});

describe("config() and databaseUrl()", () => {
  afterEach(() => vi.unstubAllEnvs());

  it("is parsed once outside vitest: a variable changed later is not seen", () => {
    vi.stubEnv("VITEST", "");
    vi.stubEnv("OPERATIONS_TICK_MS", "300");
    const first = config();
    vi.stubEnv("OPERATIONS_TICK_MS", "400");
    expect(config()).toBe(first);
    expect(config().OPERATIONS_TICK_MS).toBe(300);
  });

  it("under vitest sees a variable a test changes (vi.stubEnv)", () => {
    vi.stubEnv("OPERATIONS_TICK_MS", "300");
    const first = config();
    expect(config()).toBe(first);
    vi.stubEnv("OPERATIONS_TICK_MS", "400");
    expect(config().OPERATIONS_TICK_MS).toBe(400);
  });

  it("throws the ConfigError on use when a variable is bad", () => {
    vi.stubEnv("DB_POOL_SIZE", "many");
    expect(() => config()).toThrow('DB_POOL_SIZE: expected a positive integer, got "many"');
  });

  it("databaseUrl() reads DATABASE_URL per call, checked", () => {
    vi.stubEnv("DATABASE_URL", "postgres://a@db.example.test/one");
    expect(databaseUrl()).toBe("postgres://a@db.example.test/one");
    vi.stubEnv("DATABASE_URL", "postgres://a@db.example.test/two");
    expect(databaseUrl()).toBe("postgres://a@db.example.test/two");
    vi.stubEnv("DATABASE_URL", "");
    expect(databaseUrl()).toBeUndefined();
    vi.stubEnv("DATABASE_URL", "db.example.test");
    expect(() => databaseUrl()).toThrow(/^DATABASE_URL: expected a postgres:\/\/ or postgresql:\/\/ URL/);
  });
});
