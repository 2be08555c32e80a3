// The one way anything in this codebase says "no" to a request it was given (ADR 0012): a
// `Refusal` with a kind (what sort of no), a code (which rule, stable for programs) and a message
// for people, thrown from wherever the rule lives. Domain code knows nothing of HTTP: the kind is
// mapped to a status, a body and, for a refused authorization, a decision-log entry once, in
// lib/http/refusal-response.ts. This module is pure so the browser may use its types.

/** What sort of "no". Each maps to one HTTP status (lib/http/refusal-response.ts). */
export type RefusalKind =
  /** The request is malformed or names a field wrongly. */
  | "invalid"
  /** Nobody we know sent it. */
  | "unauthenticated"
  /** Somebody we know sent it, and may not do this: always an `authorization.refused` entry. */
  | "forbidden"
  /** What it names does not exist (or cannot be named that way). */
  | "not-found"
  /** The state it acts on does not allow it now: somebody else changed it, or it is done. */
  | "conflict"
  | "too-large"
  | "unsupported-media-type"
  /** Well formed, but the rules say no (an empty selection, a change to one's own account). */
  | "unprocessable";

/** Which field is wrong and why: `{path: "payload.amount", message: "must be a number"}`. */
export interface FieldIssue {
  path: string;
  message: string;
}

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** What the decision log keeps of a refused authorization, beyond who, where and when. */
export interface AuthorizationContext {
  /** Why, for people; bounded text without ids, part of what makes repeats "the same". Default: the message. */
  reason?: string;
  reviewId?: string | null;
  effectKey?: string | null;
  /** More of what was refused (`permission`, `action`, `operationId`, `rule`, ...). */
  details?: Record<string, JsonValue | null>;
  /**
   * Another site's page made the person's browser send it: the person did not, so it goes to the
   * application log only, never into the decision log under their name (ADR 0010).
   */
  crossSite?: boolean;
}

export interface RefusalOptions {
  issues?: FieldIssue[];
  /** Extra top-level members of the answer, e.g. the fresh `record` with a 409. */
  context?: Record<string, unknown>;
  /** For a `forbidden` refusal: what its decision-log entry says beyond the route and the actor. */
  authorization?: AuthorizationContext;
}

export class Refusal extends Error {
  readonly issues?: FieldIssue[];
  readonly context?: Record<string, unknown>;
  readonly authorization?: AuthorizationContext;

  constructor(
    readonly kind: RefusalKind,
    readonly code: string,
    message: string,
    options: RefusalOptions = {},
  ) {
    super(message);
    this.name = "Refusal";
    if (options.issues) this.issues = options.issues;
    if (options.context) this.context = options.context;
    if (options.authorization) this.authorization = options.authorization;
  }

  /** The field the refusal concerns, when it concerns one. */
  get field(): string | undefined {
    return this.issues?.[0]?.path;
  }
}

/** `field: problem`, with the field named in `issues` too, so a form can mark it. */
export function invalidField(field: string, problem: string, code = "invalid-request"): Refusal {
  return new Refusal("invalid", code, `${field}: ${problem}`, { issues: [{ path: field, message: problem }] });
}

export function notFound(message: string): Refusal {
  return new Refusal("not-found", "not-found", message);
}

export function conflict(code: string, message: string, options?: RefusalOptions): Refusal {
  return new Refusal("conflict", code, message, options);
}

export function unprocessable(code: string, message: string, options?: RefusalOptions): Refusal {
  return new Refusal("unprocessable", code, message, options);
}

/** A refused authorization: the caller is known and may not do this. Always logged (ADR 0010). */
export function forbidden(code: string, message: string, authorization: AuthorizationContext = {}): Refusal {
  return new Refusal("forbidden", code, message, { authorization });
}
