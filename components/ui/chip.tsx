import type { ButtonHTMLAttributes } from "react";
import styles from "./ui.module.css";

const numberFormat = new Intl.NumberFormat("en-US");

export interface ChipProps extends Omit<ButtonHTMLAttributes<HTMLButtonElement>, "children"> {
  label: string;
  /** Shown after the label in tabular figures; `undefined` reserves the space with a dash. */
  count?: number;
  /** Omit for a chip without a count. */
  showCount?: boolean;
  /** A toggle: announced as pressed / not pressed. */
  pressed: boolean;
}

/**
 * A toggle button for quick filters, e.g. "sequence-gap 12". Its accessible name includes the
 * count ("sequence-gap, 12"), and `aria-pressed` tells whether the filter is on.
 */
export function Chip({ label, count, showCount = true, pressed, className, type = "button", ...rest }: ChipProps) {
  return (
    <button
      type={type}
      aria-pressed={pressed}
      className={[styles.chip, showCount ? "" : styles.chipPlain, className ?? ""].filter(Boolean).join(" ")}
      {...rest}
    >
      <span>{label}</span>
      {showCount ? (
        <span className={styles.chipCount}>
          <span className="rc-visually-hidden">, </span>
          {count === undefined ? "–" : numberFormat.format(count)}
        </span>
      ) : null}
    </button>
  );
}
