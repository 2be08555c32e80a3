"use client";

import { useEffect, useId, useRef, useState } from "react";
import { Chip } from "@/components/ui/chip";
import { useRovingFocus } from "@/components/ui/use-roving-focus";
import styles from "./queue.module.css";

/** Reason chips shown in the row; the others are one click away under "more…". */
export const VISIBLE_REASONS = 6;

/**
 * The reason counts as one row of chips: the `VISIBLE_REASONS` largest (and the selected reason,
 * wherever it ranks), then "more… (n)" for the rest, in a panel that wraps. A reason is whatever
 * a client sent, so the row never grows with them: each chip is cut (full text in its tooltip)
 * and the row clips instead of widening the page.
 */
export function ReasonChips({
  reasons,
  selected,
  onReason,
}: {
  /** [reason, count], largest first. */
  reasons: [string, number][];
  selected: string | undefined;
  onReason: (value: string | null) => void;
}) {
  const [open, setOpen] = useState(false);
  const panelId = useId();
  const rowRef = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const chipRow = useRef<HTMLUListElement>(null);
  const shown = reasons
    .slice(0, VISIBLE_REASONS + 1)
    .map(([value]) => value)
    .join("\n");
  const moveInChips = useRovingFocus(chipRow, [selected, shown]);

  const top = reasons.slice(0, VISIBLE_REASONS);
  const selectedEntry = reasons.find(([value]) => value === selected);
  if (selectedEntry && !top.includes(selectedEntry)) top[top.length - 1] = selectedEntry;
  const rest = reasons.filter((entry) => !top.includes(entry));

  // Escape and a click or focus outside close the panel; Escape returns focus to its button.
  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "Escape") return;
      setOpen(false);
      buttonRef.current?.focus();
    };
    const onOutside = (event: Event) => {
      if (!rowRef.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener("keydown", onKey);
    document.addEventListener("pointerdown", onOutside);
    document.addEventListener("focusin", onOutside);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("pointerdown", onOutside);
      document.removeEventListener("focusin", onOutside);
    };
  }, [open]);

  const chip = ([value, count]: [string, number]) => {
    const pressed = selected === value;
    return (
      <li key={value}>
        <Chip
          label={value}
          title={value}
          count={count}
          pressed={pressed}
          className={styles.reasonChip}
          onClick={() => {
            setOpen(false);
            onReason(pressed ? null : value);
          }}
        />
      </li>
    );
  };

  return (
    <div className={styles.reasonRow} ref={rowRef}>
      <ul className={styles.chipRow} aria-labelledby="stats-reason" ref={chipRow} onKeyDown={moveInChips}>
        {top.map(chip)}
      </ul>
      {rest.length > 0 ? (
        <>
          <button
            ref={buttonRef}
            type="button"
            className={styles.linkButton}
            aria-expanded={open}
            aria-controls={panelId}
            onClick={() => setOpen(!open)}
          >
            more… ({rest.length})
          </button>
          <div id={panelId} className={styles.moreReasons} hidden={!open}>
            <ul aria-label="More reasons">{rest.map(chip)}</ul>
          </div>
        </>
      ) : null}
    </div>
  );
}
