import Link from "next/link";
import type { ReactNode } from "react";
import styles from "./ui.module.css";

/**
 * The line above a page's title: a breadcrumb (the `parent` page, then this one, `current`) and,
 * at the right, `children`, e.g. how fresh what the page shows is.
 */
export function Topline({
  parent,
  current,
  children,
}: {
  parent: { href: string; label: string };
  current?: ReactNode;
  children?: ReactNode;
}) {
  return (
    <div className={styles.topline}>
      <nav aria-label="Breadcrumb">
        <Link href={parent.href}>{parent.label}</Link>
        {current ? (
          <>
            <span aria-hidden="true"> / </span>
            <span aria-current="page">{current}</span>
          </>
        ) : null}
      </nav>
      {children}
    </div>
  );
}
