import type { InputHTMLAttributes, ReactNode, SelectHTMLAttributes, TextareaHTMLAttributes } from "react";
import styles from "./ui.module.css";

/**
 * A label above its control, with an optional hint below it (or, with `hintInline`, on the
 * label's line, right-aligned: no extra height). `htmlFor` must be the control's id; the hint
 * gets the id `${htmlFor}-hint` so the control can point at it with `aria-describedby`. `error`
 * (a `FieldError`) goes last, under the hint.
 */
export function Field({
  label,
  htmlFor,
  hint,
  hintInline = false,
  error,
  className,
  children,
}: {
  label: ReactNode;
  htmlFor: string;
  hint?: ReactNode;
  hintInline?: boolean;
  error?: ReactNode;
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
      {error}
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

/** A native `<textarea>` in the shared style, three rows unless told, resizable in height. */
export function Textarea({ className, rows = 3, ...rest }: TextareaHTMLAttributes<HTMLTextAreaElement>) {
  return <textarea rows={rows} className={[styles.textarea, className ?? ""].join(" ")} {...rest} />;
}

/**
 * A field's error messages, under it; `id` is what the control's `aria-describedby` names
 * (`${controlId}-error` by convention). Takes no room while there are none.
 */
export function FieldError({ id, messages }: { id: string; messages: readonly string[] | undefined }) {
  return (
    <span id={id} className={styles.fieldError}>
      {messages?.join(" ")}
    </span>
  );
}

/** Controls that belong together, framed, with a legend that names them. */
export function Fieldset({ legend, children }: { legend: ReactNode; children: ReactNode }) {
  return (
    <fieldset className={styles.fieldset}>
      <legend>{legend}</legend>
      {children}
    </fieldset>
  );
}

/** A radio button or a checkbox with its text after it, all of it clickable. */
export function Choice({ label, ...input }: { label: ReactNode } & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <label className={styles.choice}>
      <input {...input} />
      {label}
    </label>
  );
}

/**
 * A checkbox by which a person confirms they did something ("I reviewed these numbers"), boxed
 * in the warning tone. Its `errors` show under the label (id `${id}-error`) and mark it invalid.
 */
export function CheckConfirm({
  id,
  label,
  errors,
  ...input
}: { id: string; label: ReactNode; errors: readonly string[] | undefined } & Omit<
  InputHTMLAttributes<HTMLInputElement>,
  "id" | "type"
>) {
  return (
    <div className={styles.check}>
      <input
        id={id}
        type="checkbox"
        aria-invalid={errors ? true : undefined}
        aria-describedby={`${id}-error`}
        {...input}
      />
      <label htmlFor={id}>{label}</label>
      <FieldError id={`${id}-error`} messages={errors} />
    </div>
  );
}
