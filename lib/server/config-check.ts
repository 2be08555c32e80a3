// Past lib/auth's face on purpose: this check runs before anything that reads the configuration is
// loaded, and either face loads more of lib/auth (Better Auth, the log) than these pure rules.
// eslint-disable-next-line no-restricted-imports
import { signInProblems } from "@/lib/auth/oidc-config";
import { type ConfigProblem, configProblems } from "@/lib/config";

// The start's check (instrumentation.ts, ./start-check.ts, cli/config-check.ts): every variable
// alone (lib/config), then the sign-in rules that join several (lib/auth/oidc-config.ts), so the
// configuration stays below the modules that give its values a meaning
// (docs/decisions/0042-one-validated-configuration.md).

type Env = Record<string, string | undefined>;

/** Every problem of the configuration in `env`, one per variable (none: an empty list). */
export function startProblems(env: Env = process.env): readonly ConfigProblem[] {
  const problems = [...configProblems(env)];
  const bad = new Set(problems.map((p) => p.variable));
  // The sign-in rules trim every value they read, so a blank one counts as unset there too.
  for (const p of signInProblems(env)) {
    if (!bad.has(p.variable)) problems.push(p);
    bad.add(p.variable);
  }
  return problems;
}

/**
 * With a bad variable the process ends after one line per bad variable, each naming it, rather
 * than failing later at the first use. Exit code 2 for the console, as its other start-up
 * refusals; the CLI passes 1, its code for a failure the user can fix.
 */
export function checkConfigOrExit(exitCode = 2): void {
  const problems = startProblems();
  if (problems.length === 0) return;
  for (const p of problems) console.error(`error: ${p.variable}: ${p.problem}`);
  process.exit(exitCode);
}
