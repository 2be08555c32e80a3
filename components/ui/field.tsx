import type { InputHTMLAttributes, ReactNode, SelectHTMLAttributes } from "react";
import styles from "./ui.module.css";

/**
 * A label above its control, with an optional hint below it (or, with `hintInline`, on the
 * label's line, right-aligned: no extra height). `htmlFor` must be the control's id; the hint
 * gets the id `${htmlFor}-hint` so the control can point at it with `aria-describedby`.
 */
export function Field({
  label,
  htmlFor,
  hint,
  hintInline = false,
  className,
  children,
}: {
  label: ReactNode;
  htmlFor: string;
  hint?: ReactNode;
  hintInline?: boolean;
  className?: string;
  children: ReactNode;
}) {
  const hintElement = hint ? (
    <span className={styles.hint} id={`${htmlFor}-hint`}>
      {hint}
    </span>
  ) : null;
  return (
    <div className={[styles.field, className ?? ""].join(" ")}>
      {hintInline ? (
        <div className={styles.labelRow}>
          <label className={styles.label} htmlFor={htmlFor}>
            {label}
          </label>
          {hintElement}
        </div>
      ) : (
        <label className={styles.label} htmlFor={htmlFor}>
          {label}
        </label>
      )}
      {children}
      {hintInline ? null : hintElement}
    </div>
  );
}

/** A native `<input>` in the shared style. */
export function Input({ className, ...rest }: InputHTMLAttributes<HTMLInputElement>) {
  return <input className={[styles.control, className ?? ""].join(" ")} {...rest} />;
}

/** A native `<select>` in the shared style. */
export function Select({ className, ...rest }: SelectHTMLAttributes<HTMLSelectElement>) {
  return <select className={[styles.control, className ?? ""].join(" ")} {...rest} />;
}
