import type { z } from "zod";

export interface ApiIssue {
  path: string;
  message: string;
}

/** An expected refusal: becomes `{"error": {code, message, issues?}}` with its status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly issues?: ApiIssue[],
    /** Extra top-level members of the answer, e.g. the fresh `record` with a 409. */
    readonly extra?: Record<string, unknown>,
  ) {
    super(message);
  }
}

export function errorResponse(error: ApiError): Response {
  const body: { error: { code: string; message: string; issues?: ApiIssue[] } } = {
    error: { code: error.code, message: error.message },
  };
  if (error.issues) body.error.issues = error.issues;
  return Response.json({ ...error.extra, ...body }, { status: error.status });
}

export function issuePath(path: ReadonlyArray<PropertyKey>): string {
  return path.map((p) => (typeof p === "symbol" ? p.toString() : String(p))).join(".");
}

/** A zod failure as a 400 whose message names the first offending field. */
export function validationError(error: z.ZodError, prefix?: string): ApiError {
  const issues = error.issues.map((i) => ({
    path: issuePath(prefix ? [prefix, ...i.path] : i.path),
    message: i.message,
  }));
  const first = issues[0];
  const message = first ? `${first.path || "body"}: ${first.message}` : "invalid request";
  return new ApiError(400, "invalid-request", message, issues);
}
