import { ConfigError, type ConfigProblem } from "./error";
import { type Settings, VARIABLE_NAMES, VARIABLES } from "./schema";

// The console's configuration: every environment variable it reads, validated in one place
// (./schema.ts) and parsed once into a frozen object (docs/decisions/0042-one-validated-configuration.md).
// The console's start (instrumentation.ts, scripts/serve.ts) and the CLI (cli/config-check.ts)
// check it all first and stop, naming every bad variable (lib/server/config-check.ts, which adds
// the sign-in rules that join several variables: lib/auth/oidc-config.ts).

export { ConfigError, type ConfigProblem } from "./error";
export { type LogLevel, type Settings, type Variable, type VariableName, VARIABLE_NAMES, VARIABLES } from "./schema";

/**
 * The configuration: every variable parsed. Without DATABASE_URL, which is read per call
 * (databaseUrl()): the CLI sets it in its own process once it has chosen the database, and tests
 * point it at each test file's database.
 */
export type Config = Readonly<Omit<Settings, "DATABASE_URL">>;

type Env = Record<string, string | undefined>;

/** The variables' raw values, a blank one as unset. */
function rawValues(env: Env): Record<string, string | undefined> {
  const raw: Record<string, string | undefined> = {};
  for (const name of VARIABLE_NAMES) {
    const value = env[name];
    raw[name] = value === undefined || value.trim() === "" ? undefined : value;
  }
  return raw;
}

/** Parses every variable of `env`; throws a ConfigError naming every bad one (one problem each). */
export function loadConfig(env: Env): Config {
  const raw = rawValues(env);
  const problems: ConfigProblem[] = [];
  const values: Record<string, unknown> = {};
  for (const name of VARIABLE_NAMES) {
    const result = VARIABLES[name].schema.safeParse(raw[name]);
    if (result.success) values[name] = result.data;
    else problems.push({ variable: name, problem: result.error.issues[0]?.message ?? "is not valid" });
  }
  if (problems.length > 0) throw new ConfigError(problems);
  delete values.DATABASE_URL;
  return Object.freeze(values) as Config;
}

let memo: { key: string | null; config: Config } | undefined;

/**
 * The configuration, parsed on first use and then kept. Under vitest it is parsed again when a
 * variable has changed since: tests change some at run time (vi.stubEnv of TRUSTED_PROXIES,
 * WEBHOOK_ALLOWED_NETWORKS, BETTER_AUTH_URL, BETTER_AUTH_SECRET).
 */
export function config(): Config {
  const key = process.env.VITEST ? JSON.stringify(VARIABLE_NAMES.map((name) => process.env[name] ?? null)) : null;
  if (memo === undefined || memo.key !== key) memo = { key, config: loadConfig(process.env) };
  return memo.config;
}

/** DATABASE_URL, checked, read per call (see Config); undefined when unset. */
export function databaseUrl(): string | undefined {
  const value = process.env.DATABASE_URL;
  if (value === undefined || value.trim() === "") return undefined;
  const result = VARIABLES.DATABASE_URL.schema.safeParse(value);
  if (!result.success) throw new ConfigError("DATABASE_URL", result.error.issues[0]?.message ?? "is not valid");
  return result.data;
}

/** Every problem of the configuration in `env` (none: an empty list). */
export function configProblems(env: Env = process.env): readonly ConfigProblem[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}
