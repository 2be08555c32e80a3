import type { Problem } from "@/components/ui/notice";
import { ApiRequestError } from "@/lib/client/api";

// A refused request about an operation, said in words: what failed, the server's message, and
// the fields it names (`{error: {code, message, issues: [{path, message}]}}`).

/** Messages by the first segment of an issue's path (`autoPause.threshold` stays whole). */
export type FieldErrors = Record<string, string[]>;

export function groupIssues(error: unknown): FieldErrors {
  const out: FieldErrors = {};
  if (!(error instanceof ApiRequestError)) return out;
  for (const issue of error.issues) (out[issue.path || "form"] ??= []).push(issue.message);
  return out;
}

export function problemOf(error: unknown): Problem {
  if (!(error instanceof ApiRequestError)) {
    return {
      title: "No answer from the server",
      text: "The request may or may not have been taken; the page refreshes by itself. Check it before trying again.",
      fields: {},
    };
  }
  const fields = groupIssues(error);
  if (error.status === 409) return { title: "The operation has moved on meanwhile", text: error.message, fields };
  if (error.status === 400 || error.status === 422)
    return { title: "The server refused this", text: error.message, fields };
  if (error.status === 403) return { title: "Your role may not do this", text: error.message, fields };
  if (error.status === 401) return { title: "Your session has ended", text: "Sign in again to continue.", fields };
  if (error.status === 404) return { title: "Not found", text: error.message, fields };
  return { title: "The request failed", text: error.message, fields };
}
