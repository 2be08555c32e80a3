import type { InputHTMLAttributes, ReactNode, SelectHTMLAttributes, TextareaHTMLAttributes } from "react";
import styles from "./ui.module.css";

/** What `Field` hands its control: the id its label names and the ids of what describes it. */
export interface FieldControlProps {
  id: string;
  "aria-describedby"?: string;
  "aria-invalid"?: true;
}

/**
 * A label above its control, with an optional hint below it (or, with `hintInline`, on the
 * label's line, right-aligned: no extra height), and the field's errors last.
 *
 * One place wires them (after Epic Stack's forms): give `children` as a function and it receives
 * the control's props, `id` (= `htmlFor`), `aria-describedby` naming the hint (`${htmlFor}-hint`)
 * and, while there are `errors`, the error text (`${htmlFor}-error`), and `aria-invalid`. Spread
 * them on the control:
 *
 *     <Field label="Reason" htmlFor="reason" hint="For the decision log" errors={errors.reason}>
 *       {(control) => <Textarea {...control} value={reason} onChange={...} />}
 *     </Field>
 *
 * `description` is another name for `hint`. The older form, a control element as `children` that
 * names `${htmlFor}-hint` itself and an `error` node (a `FieldError`), still works unchanged.
 */
export function Field({
  label,
  htmlFor,
  hint,
  description,
  hintInline = false,
  error,
  errors,
  className,
  children,
}: {
  label: ReactNode;
  htmlFor: string;
  hint?: ReactNode;
  /** Same as `hint`. */
  description?: ReactNode;
  hintInline?: boolean;
  /** A rendered error node (older form); prefer `errors`. */
  error?: ReactNode;
  /** The field's error messages: shown under it and wired to the control (function children). */
  errors?: readonly string[];
  className?: string;
  children: ReactNode | ((control: FieldControlProps) => ReactNode);
}) {
  const help = hint ?? description;
  const hintId = `${htmlFor}-hint`;
  const errorId = `${htmlFor}-error`;
  const invalid = errors !== undefined && errors.length > 0;
  const hintElement = help ? (
    <span className={styles.hint} id={hintId}>
      {help}
    </span>
  ) : null;
  const wired = typeof children === "function";
  const describedBy = [help ? hintId : null, invalid ? errorId : null].filter(Boolean).join(" ");
  const control = wired
    ? children({
        id: htmlFor,
        ...(describedBy ? { "aria-describedby": describedBy } : {}),
        ...(invalid ? { "aria-invalid": true as const } : {}),
      })
    : children;
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
      {control}
      {hintInline ? null : hintElement}
      {error}
      {wired || errors !== undefined ? <FieldError id={errorId} messages={invalid ? errors : undefined} /> : null}
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
