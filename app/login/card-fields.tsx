import type { InputHTMLAttributes, ReactNode, Ref } from "react";
import styles from "./login.module.css";

// The pieces of the signed-out card's forms (sign in, set a password), so both read the same.

/**
 * A labelled input. While `errorId` names the form's error line (there is an error), the input
 * is marked invalid and described by it.
 */
export function CardField({
  id,
  label,
  errorId,
  ref,
  ...input
}: {
  id: string;
  label: string;
  errorId: string | undefined;
  ref?: Ref<HTMLInputElement>;
} & Omit<InputHTMLAttributes<HTMLInputElement>, "id">) {
  return (
    <div className={styles.field}>
      <label htmlFor={id}>{label}</label>
      <input ref={ref} id={id} aria-invalid={errorId ? true : undefined} aria-describedby={errorId} {...input} />
    </div>
  );
}

/** The form's one error line, announced when it changes (role="alert"); no height while empty. */
export function CardError({ id, children }: { id: string; children: ReactNode }) {
  return (
    <p id={id} className={styles.error} role="alert">
      {children}
    </p>
  );
}
