import type { HTMLAttributes, ReactNode, Ref } from "react";
import styles from "./ui.module.css";

export type NoticeTone = "error" | "warning" | "info";

const TONE_CLASS: Record<NoticeTone, string | undefined> = {
  error: styles.noticeError,
  warning: styles.noticeWarning,
  info: styles.noticeInfo,
};

/**
 * A boxed message in a tone, its `title` first in bold (`titleId` lets the box be labelled by
 * it). Other attributes (`role`, `aria-*`, `ref`) go to the box.
 */
export function Notice({
  tone,
  title,
  titleId,
  ref,
  children,
  ...rest
}: {
  tone: NoticeTone;
  title?: ReactNode;
  titleId?: string;
  ref?: Ref<HTMLDivElement>;
  children?: ReactNode;
} & Omit<HTMLAttributes<HTMLDivElement>, "className" | "title">) {
  return (
    <div ref={ref} className={`${styles.notice} ${TONE_CLASS[tone]}`} {...rest}>
      {title ? (
        <p className={styles.noticeTitle} id={titleId}>
          {title}
        </p>
      ) : null}
      {children}
    </div>
  );
}

/** A refused request, said in words: what failed, why, and the messages of the fields it names. */
export interface Problem {
  title: string;
  text: string;
  /** Messages a form shows next to its fields, by field. */
  fields: Record<string, string[]>;
}

/** One field's message in the notice; `targetId` is the control a click on it focuses. */
export interface IssueLink {
  label: string;
  message: string;
  targetId?: string;
}

/**
 * The problem as an alert, each field's message a link to its control. The box around it takes
 * `ref`, so a form can move the focus there after a refused submit; it stays (empty) without one.
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
        <Notice tone="error" role="alert" title={problem.title}>
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
        </Notice>
      ) : null}
    </div>
  );
}
