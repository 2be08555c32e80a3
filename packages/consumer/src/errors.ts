// What a handler throws tells the runtime what happened to the effect. The distinction matters
// only for external effects: a local effect's transaction rolls back, so it never half-exists.

/**
 * The request may have reached the provider but its answer was lost (a timeout, a connection
 * reset after the request was sent). Not a failure: the effect may exist. The journal entry
 * becomes `unknown`, an `effect-result-unknown` review record is written, nothing retries it.
 */
export class EffectOutcomeUnknownError extends Error {
  override readonly name = "EffectOutcomeUnknownError";
}

/**
 * The effect was certainly not created, for a reason that may pass (a 503, a refused
 * connection, a dependency that is not ready). Retried when the kind declares `reason` as
 * temporary, within its limit; otherwise routed to review under `reason` (or `retry-limit`).
 */
export class TemporaryFailure extends Error {
  override readonly name = "TemporaryFailure";
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

/** The effect was certainly not created and repeating will not help: routed to review under `reason`. */
export class PermanentFailure extends Error {
  override readonly name = "PermanentFailure";
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

/** One line for a review record's `lastError`: the class and message, never a stack. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}
