/**
 * The wait after a background loop's round failed (the console's dispatcher, automatic replay and
 * webhook notifier): it doubles with each failure in a row, from `firstMs` up to `maxMs`, and a
 * round that succeeds starts it over. With the database gone for minutes, a loop then costs one
 * round (and one log line) every `maxMs` instead of one a tick, and it still resumes within
 * `maxMs` of the database's return (test:restarts, test:failover).
 */
export class FailureBackoff {
  private inARow = 0;

  constructor(
    private readonly firstMs = 1_000,
    private readonly maxMs = 5_000,
  ) {}

  /** Counts a failed round; the wait before the next one. */
  failed(): number {
    this.inARow++;
    return Math.min(this.maxMs, this.firstMs * 2 ** (this.inARow - 1));
  }

  /** A round succeeded: the next failure waits `firstMs` again. */
  succeeded(): void {
    this.inARow = 0;
  }

  /** Failures in a row so far (0 after a success). */
  get failures(): number {
    return this.inARow;
  }
}
