/** One variable that cannot be used, and what is wrong with it. */
export interface ConfigProblem {
  variable: string;
  problem: string;
}

/**
 * A configuration that cannot be used. Its message has one line per bad variable, each naming
 * it: `OPERATIONS_TICK_MS: expected a positive integer, got "abc"`.
 */
export class ConfigError extends Error {
  readonly problems: readonly ConfigProblem[];

  constructor(variable: string, problem: string);
  constructor(problems: readonly ConfigProblem[]);
  constructor(first: string | readonly ConfigProblem[], problem?: string) {
    const problems = typeof first === "string" ? [{ variable: first, problem: problem ?? "" }] : first;
    super(problems.map((p) => `${p.variable}: ${p.problem}`).join("\n"));
    this.name = "ConfigError";
    this.problems = Object.freeze([...problems]);
  }

  /** The (first) variable named. */
  get setting(): string {
    return this.problems[0]?.variable ?? "";
  }
}
