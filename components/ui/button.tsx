import type { ButtonHTMLAttributes, ReactNode } from "react";
import styles from "./ui.module.css";

export type ButtonVariant = "default" | "primary" | "subtle" | "danger";

const VARIANT_CLASS: Record<ButtonVariant, string | undefined> = {
  default: undefined,
  primary: styles.primary,
  subtle: styles.subtle,
  danger: styles.dangerButton,
};
export type ButtonSize = "md" | "sm";

/**
 * The class names of a button, for elements that must look like one but are not a `<button>`
 * (a `<Link>` or a download `<a>`): `<a className={buttonClassName("primary")} href=…>`.
 */
export function buttonClassName(variant: ButtonVariant = "default", size: ButtonSize = "md", extra?: string): string {
  return [styles.button, VARIANT_CLASS[variant] ?? "", size === "sm" ? styles.small : "", extra ?? ""]
    .filter(Boolean)
    .join(" ");
}

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  /**
   * `primary` for the one main action of a region, `subtle` for low-emphasis actions, `danger`
   * for one that cannot be undone (abort, revoke, disable, cancel).
   */
  variant?: ButtonVariant;
  size?: ButtonSize;
}

/** A native `<button>` (type "button" unless told otherwise, so it never submits by accident). */
export function Button({ variant = "default", size = "md", className, type = "button", ...rest }: ButtonProps) {
  return <button type={type} className={buttonClassName(variant, size, className)} {...rest} />;
}

/** Buttons side by side (a form's submit, a note beside it), wrapping on a narrow screen. */
export function ButtonRow({ children }: { children: ReactNode }) {
  return <div className={styles.buttonRow}>{children}</div>;
}
