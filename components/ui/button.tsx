import type { ButtonHTMLAttributes } from "react";
import styles from "./ui.module.css";

export type ButtonVariant = "default" | "primary" | "subtle";
export type ButtonSize = "md" | "sm";

/**
 * The class names of a button, for elements that must look like one but are not a `<button>`
 * (a `<Link>` or a download `<a>`): `<a className={buttonClassName("primary")} href=…>`.
 */
export function buttonClassName(variant: ButtonVariant = "default", size: ButtonSize = "md", extra?: string): string {
  return [
    styles.button,
    variant === "primary" ? styles.primary : variant === "subtle" ? styles.subtle : "",
    size === "sm" ? styles.small : "",
    extra ?? "",
  ]
    .filter(Boolean)
    .join(" ");
}

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  /** `primary` for the one main action of a region, `subtle` for low-emphasis actions. */
  variant?: ButtonVariant;
  size?: ButtonSize;
}

/** A native `<button>` (type "button" unless told otherwise, so it never submits by accident). */
export function Button({ variant = "default", size = "md", className, type = "button", ...rest }: ButtonProps) {
  return <button type={type} className={buttonClassName(variant, size, className)} {...rest} />;
}
