import type { ReactNode, Ref } from "react";
import { ApiRequestError } from "@/lib/client/api";
import { Button, buttonClassName } from "./button";
import styles from "./ui.module.css";

/**
 * Nothing to show, and what to do about it: a title that states the fact ("No records match")
 * and a body or action that says what to try next.
 */
export function EmptyState({ title, children, action }: { title: string; children?: ReactNode; action?: ReactNode }) {
  return (
    <div className={styles.state}>
      <p className={styles.stateTitle}>{title}</p>
      {children ? <div className={styles.stateBody}>{children}</div> : null}
      {action ? <div className={styles.stateActions}>{action}</div> : null}
    </div>
  );
}

/** A sentence for the user about a failed request, by HTTP status (see `ApiRequestError`). */
export function describeError(error: unknown): { advice: string; detail: string | null } {
  if (error instanceof ApiRequestError) {
    const detail = `${error.status} ${error.code}: ${error.message}`;
    if (error.status === 401) return { advice: "Your session has ended. Sign in again to continue.", detail };
    if (error.status === 403) return { advice: "Your role may not see this. Ask an admin if you need it.", detail };
    if (error.status === 404)
      return { advice: "The server does not offer this yet, or it was not found. Try again later.", detail };
    if (error.status === 400 || error.status === 422)
      return { advice: "The server refused these filters. Check them and try again.", detail };
    if (error.status >= 500) return { advice: "The server failed to answer. Try again in a moment.", detail };
    return { advice: "The request failed. Try again.", detail };
  }
  if (error instanceof Error && error.name === "AbortError")
    return { advice: "The request was cancelled.", detail: null };
  return {
    advice: "The server could not be reached. Check your connection and try again.",
    detail: error instanceof Error ? error.message : null,
  };
}

/**
 * A failed load: what failed (`title`), why in plain words, the server's own message, and a
 * retry button. Announced to screen readers (`role="alert"`).
 */
export function ErrorState({
  title,
  error,
  onRetry,
  retrying = false,
  action,
}: {
  title: string;
  error: unknown;
  onRetry?: () => void;
  retrying?: boolean;
  /** Another way out, e.g. a "Clear filters" button or a sign-in link. */
  action?: ReactNode;
}) {
  const { advice, detail } = describeError(error);
  const signIn = error instanceof ApiRequestError && error.status === 401;
  return (
    <div className={`${styles.state} ${styles.errorBox}`} role="alert">
      <p className={styles.stateTitle}>{title}</p>
      <p className={styles.stateBody}>{advice}</p>
      {detail ? <p className={styles.stateDetail}>{detail}</p> : null}
      <div className={styles.stateActions}>
        {onRetry ? (
          <Button onClick={onRetry} disabled={retrying}>
            {retrying ? "Retrying…" : "Try again"}
          </Button>
        ) : null}
        {signIn ? (
          <a className={buttonClassName()} href="/login">
            Sign in
          </a>
        ) : null}
        {action}
      </div>
    </div>
  );
}

/** What `QueryState` reads of a query: TanStack Query's results, plain or infinite, fit. */
export interface QueryStatus {
  isPending: boolean;
  isError: boolean;
  isFetching: boolean;
  data: unknown;
  error: unknown;
  refetch: () => unknown;
}

/**
 * A loaded list's states in one place: `loading` (muted text) until the first answer, an
 * `ErrorState` with a retry when that failed (a failed refresh keeps the rows on screen),
 * `empty` when the answer holds nothing, else the children.
 */
export function QueryState({
  query,
  loading,
  errorTitle,
  isEmpty,
  empty,
  children,
}: {
  query: QueryStatus;
  loading: string;
  errorTitle: string;
  isEmpty: boolean;
  empty: ReactNode;
  children: ReactNode;
}) {
  if (query.isPending) return <p className="rc-muted">{loading}</p>;
  if (query.isError && !query.data) {
    return (
      <ErrorState
        title={errorTitle}
        error={query.error}
        onRetry={() => void query.refetch()}
        retrying={query.isFetching}
      />
    );
  }
  return isEmpty ? empty : children;
}

/**
 * What an action just did ("Token billing created."), a live region (role="status") with the
 * height of a line even while empty. `ref` lets the page move the focus here after a dialog
 * closes, so keyboard users land on the result.
 */
export function StatusLine({
  ref,
  className,
  children,
}: {
  ref?: Ref<HTMLParagraphElement>;
  className?: string;
  children: ReactNode;
}) {
  return (
    <p ref={ref} tabIndex={-1} role="status" className={[styles.statusLine, className ?? ""].join(" ")}>
      {children}
    </p>
  );
}
