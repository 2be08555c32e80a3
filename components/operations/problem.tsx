import type { Ref } from "react";
import { ApiRequestError } from "@/lib/client/api";
import styles from "./operations.module.css";

// A refused request, said in words: what failed, the server's message, and the fields it names
// (`{error: {code, message, issues: [{path, message}]}}`).

/** Messages by the first segment of an issue's path (`autoPause.threshold` stays whole). */
export type FieldErrors = Record<string, string[]>;

export interface Problem {
  title: string;
  text: string;
  /** Issues the form shows next to a field, keyed by path. */
  fields: FieldErrors;
}

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

/** One field's message in a form's summary; `targetId` is the control a click focuses. */
export interface IssueLink {
  label: string;
  message: string;
  targetId?: string;
}

/**
 * The problem as an alert, with each field's message as a link to its control; `ref` lets a
 * form move focus to it after a refused submit.
 */
export function ProblemNotice({
  problem,
  issues = [],
  ref,
}: {
  problem: Problem | null;
  issues?: IssueLink[];
  ref?: Ref<HTMLDivElement>;
}) {
  return (
    <div ref={ref} tabIndex={-1} className={styles.focusTarget}>
      {problem ? (
        <div role="alert" className={styles.noticeError}>
          <p className={styles.noticeTitle}>{problem.title}</p>
          {problem.text ? <p>{problem.text}</p> : null}
          {issues.length > 0 ? (
            <ul className={styles.issueList}>
              {issues.map((issue) => (
                <li key={`${issue.label}:${issue.message}`}>
                  {issue.targetId ? (
                    <a
                      href={`#${issue.targetId}`}
                      onClick={(event) => {
                        const target = document.getElementById(issue.targetId!);
                        if (target) {
                          event.preventDefault();
                          target.focus();
                        }
                      }}
                    >
                      {issue.label}: {issue.message}
                    </a>
                  ) : (
                    `${issue.label}: ${issue.message}`
                  )}
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}

export function FieldErrorText({ id, messages }: { id: string; messages: string[] | undefined }) {
  return (
    <span id={id} className={styles.fieldError}>
      {messages?.join(" ")}
    </span>
  );
}
