import type { ReactNode } from "react";
import { Button } from "./button";
import styles from "./ui.module.css";

/**
 * The line above a list: its title (an h2 whose `titleId` labels the list's region), what is
 * shown ("120 shown, more below"), an `alert` when a refresh failed, and controls at the right.
 */
export function ListHeading({
  titleId,
  title,
  meta,
  alert,
  children,
}: {
  titleId: string;
  title: ReactNode;
  meta: ReactNode;
  alert?: ReactNode;
  children?: ReactNode;
}) {
  return (
    <div className={styles.listHeading}>
      <h2 className={styles.listTitle} id={titleId}>
        {title}
      </h2>
      <span className={styles.listMeta}>{meta}</span>
      {alert ? (
        <span className={`${styles.listMeta} ${styles.listAlert}`} role="alert">
          {alert}
        </span>
      ) : null}
      {children ? <div className={styles.listControls}>{children}</div> : null}
    </div>
  );
}

/** What `ListFooter` reads of a paged query: TanStack Query's `useInfiniteQuery` result fits. */
export interface PagedQuery {
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage: () => unknown;
}

/**
 * The line under a paged list: `children` (how many are shown, say), then a button that loads
 * the next page while there is one, else the `end` text ("End of the list.").
 */
export function ListFooter({
  query,
  loadLabel,
  end,
  children,
}: {
  query: PagedQuery;
  loadLabel: string;
  end?: string;
  children?: ReactNode;
}) {
  return (
    <div className={styles.listFooter}>
      {children}
      {query.hasNextPage ? (
        <Button onClick={() => void query.fetchNextPage()} disabled={query.isFetchingNextPage}>
          {query.isFetchingNextPage ? "Loading…" : loadLabel}
        </Button>
      ) : end ? (
        <span>{end}</span>
      ) : null}
    </div>
  );
}
