import { type ReactNode, useId } from "react";
import styles from "./ui.module.css";

/**
 * A titled, framed region of a page; its heading names it for screen readers. Beside the title
 * goes a short `note` (muted text) or `actions` (a button, a switch). With `layout="stack"` (the
 * default) the children stand 10 px apart with no margins of their own; `layout="flow"` keeps
 * their own margins, for prose (the record page).
 */
export function Section({
  title,
  note,
  actions,
  layout = "stack",
  children,
}: {
  title: string;
  note?: ReactNode;
  actions?: ReactNode;
  layout?: "stack" | "flow";
  children: ReactNode;
}) {
  const id = useId();
  return (
    <section
      className={`${styles.section} ${layout === "flow" ? styles.sectionFlow : styles.sectionStack}`}
      aria-labelledby={id}
    >
      <div className={styles.sectionHead}>
        <h2 id={id} className={styles.sectionTitle}>
          {title}
        </h2>
        {note ? <p className={styles.sectionNote}>{note}</p> : null}
        {actions}
      </div>
      {children}
    </section>
  );
}
