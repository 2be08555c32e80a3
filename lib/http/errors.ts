import type { z } from "zod";
import { Refusal } from "@/lib/domain/refusal";

export function issuePath(path: ReadonlyArray<PropertyKey>): string {
  return path.map((p) => (typeof p === "symbol" ? p.toString() : String(p))).join(".");
}

/** A zod failure as an `invalid` refusal whose message names the first offending field. */
export function validationError(error: z.ZodError, prefix?: string): Refusal {
  const issues = error.issues.map((i) => ({
    path: issuePath(prefix ? [prefix, ...i.path] : i.path),
    message: i.message,
  }));
  const first = issues[0];
  const message = first ? `${first.path || "body"}: ${first.message}` : "invalid request";
  return new Refusal("invalid", "invalid-request", message, { issues });
}
