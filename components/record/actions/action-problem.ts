import { ApiRequestError } from "@/lib/client/api";
import { type FieldErrors, groupIssues } from "./field-errors";

// A refused or failed action in words, by HTTP status and problem code: what the form shows in
// its summary, and whether it goes back to the stale notice or the correction's editor.

export interface FormProblem {
  title: string;
  text: string;
  hint?: string;
}

const CONFLICT_TITLE: Record<string, string> = {
  "not-allowed": "This action does not fit the record any more",
  "gap-closed": "The gap has closed meanwhile",
  "predecessor-in-flight": "A predecessor is being applied right now",
};

const CONFLICT_HINT: Record<string, string> = {
  "gap-closed": "The missing messages arrived or were resolved: nothing needs skipping. Replay the record instead.",
  "predecessor-in-flight": "Wait until its effect is recorded, then look at the sequence again.",
};

export type ActionFailure =
  /** Someone changed the record first: the stale notice takes over. */
  { type: "stale" } | { type: "problem"; errors: FieldErrors; problem: FormProblem; backToEditor: boolean };

export function describeActionFailure(error: Error, isCorrection: boolean): ActionFailure {
  const problem = (title: string, text = "", errors: FieldErrors = {}, backToEditor = false): ActionFailure => ({
    type: "problem",
    errors,
    problem: { title, text },
    backToEditor,
  });
  if (!(error instanceof ApiRequestError)) {
    return problem(
      "No answer from the server",
      "The action may or may not have been saved. The record refreshes by itself; check its history before trying again.",
    );
  }
  if (error.status === 409 && error.code === "stale-version") return { type: "stale" };
  if (error.status === 409) {
    return {
      type: "problem",
      errors: {},
      problem: {
        title: CONFLICT_TITLE[error.code] ?? "The record's state does not allow this",
        text: error.message,
        hint: CONFLICT_HINT[error.code],
      },
      backToEditor: false,
    };
  }
  if (error.status === 400 || error.status === 422) {
    const backToEditor =
      isCorrection && error.issues.some((i) => i.path.startsWith("payload") || i.path.startsWith("envelope"));
    return problem(
      error.status === 422 ? "The server refused the correction" : "Some fields need attention",
      error.message,
      groupIssues(error.issues),
      backToEditor,
    );
  }
  if (error.status === 403) return problem("Your role may not do this", error.message);
  if (error.status === 401) return problem("Your session has ended", "Sign in again; your input is lost on reload.");
  return problem("The request failed", error.message);
}
