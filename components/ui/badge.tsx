import type { ReactNode } from "react";
import styles from "./ui.module.css";

export type Tone = "neutral" | "info" | "success" | "warning" | "danger" | "violet";

/** A small pill of text in one of the shared tones (each meets WCAG AA on its background). */
export function Badge({ tone = "neutral", title, children }: { tone?: Tone; title?: string; children: ReactNode }) {
  return (
    <span className={`${styles.badge} ${styles[tone]}`} title={title}>
      {children}
    </span>
  );
}
