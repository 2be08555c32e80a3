"use client";

import { type ReactNode, type TableHTMLAttributes, useId, useLayoutEffect, useRef, useState } from "react";
import { flushSync } from "react-dom";
import styles from "./ui.module.css";

/**
 * A table in a frame, with a caption for screen readers. `layout="auto"`: cells wrap and the
 * frame scrolls sideways when the table is wider than the page. `layout="fixed"`: the columns
 * keep the widths of the `<colgroup>` while rows refresh, every cell is one line cut with an
 * ellipsis and the header stays in view; `stale` dims rows about to be replaced, `compact`
 * narrows the cells' padding for many columns.
 *
 * On a narrow screen every table scrolls sideways inside its frame, never the page. While it
 * does, the frame is a named group in the tab order, so keyboard users can scroll it with the
 * arrow keys; a frame with nothing to scroll is no tab stop (one fewer before the first row).
 */
export function DataTable({
  caption,
  layout = "auto",
  stale = false,
  compact = false,
  children,
  ...rest
}: {
  caption: ReactNode;
  layout?: "auto" | "fixed";
  stale?: boolean;
  compact?: boolean;
  children: ReactNode;
} & Omit<TableHTMLAttributes<HTMLTableElement>, "className">) {
  const fixed = layout === "fixed";
  const captionId = useId();
  const frame = useRef<HTMLDivElement>(null);
  const scrollable = useScrollsSideways(frame);
  const className = [
    styles.table,
    fixed ? styles.tableFixed : "",
    compact ? styles.tableCompact : "",
    stale ? styles.tableStale : "",
  ]
    .filter(Boolean)
    .join(" ");
  return (
    // A group, not a region: a landmark per table would crowd the page's landmarks.
    <div
      className={fixed ? styles.tableClip : styles.tableScroll}
      role="group"
      aria-labelledby={captionId}
      ref={frame}
      tabIndex={scrollable ? 0 : undefined}
    >
      <table className={className} {...rest}>
        <caption id={captionId} className="rc-visually-hidden">
          {caption}
        </caption>
        {children}
      </table>
    </div>
  );
}

/**
 * Whether the element's content is wider than its box, kept up to date as either changes size.
 * Measured before the browser paints (a layout effect, and a synchronous update from the
 * observer, which runs between layout and paint): a frame never shows scrolling without being a
 * tab stop, which a keyboard user, and axe, would find unreachable.
 */
function useScrollsSideways(ref: { current: HTMLElement | null }): boolean {
  const [scrolls, setScrolls] = useState(false);
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return;
    const measure = () => element.scrollWidth > element.clientWidth + 1;
    setScrolls(measure());
    const check = () => {
      const now = measure();
      flushSync(() => setScrolls(now));
    };
    const observer = new ResizeObserver(check);
    observer.observe(element);
    if (element.firstElementChild) observer.observe(element.firstElementChild);
    return () => observer.disconnect();
  }, [ref]);
  return scrolls;
}

/** One cell across the table in place of its rows: why there are none, or why they failed. */
export function TableMessage({ colSpan, children }: { colSpan: number; children: ReactNode }) {
  return (
    <tr>
      <td colSpan={colSpan} className={styles.messageCell}>
        {children}
      </td>
    </tr>
  );
}
