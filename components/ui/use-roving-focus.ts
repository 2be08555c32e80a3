"use client";

import { type KeyboardEvent, type RefObject, useLayoutEffect } from "react";

/**
 * One tab stop for a row of buttons (the toolbar pattern): Tab enters the row at its pressed
 * button (else its first), the arrow keys, Home and End move between the buttons, Tab leaves.
 * A row of filter chips then costs a keyboard user one Tab instead of one per chip. The buttons
 * are found in the DOM, so any markup (a `<ul>` of chips) works. Returns the row's onKeyDown.
 */
export function useRovingFocus(rowRef: RefObject<HTMLElement | null>, deps: readonly unknown[]) {
  useLayoutEffect(() => {
    const buttons = buttonsOf(rowRef.current);
    const current = buttons.find((b) => b.getAttribute("aria-pressed") === "true") ?? buttons[0];
    for (const button of buttons) button.tabIndex = button === current ? 0 : -1;
    // eslint-disable-next-line react-hooks/exhaustive-deps -- re-run when what the row shows changes
  }, deps);

  return (event: KeyboardEvent<HTMLElement>) => {
    const buttons = buttonsOf(rowRef.current);
    const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
    if (at < 0) return;
    const next =
      event.key === "ArrowRight" || event.key === "ArrowDown"
        ? (at + 1) % buttons.length
        : event.key === "ArrowLeft" || event.key === "ArrowUp"
          ? (at - 1 + buttons.length) % buttons.length
          : event.key === "Home"
            ? 0
            : event.key === "End"
              ? buttons.length - 1
              : -1;
    if (next < 0) return;
    event.preventDefault();
    buttons[at]!.tabIndex = -1;
    buttons[next]!.tabIndex = 0;
    buttons[next]!.focus();
  };
}

function buttonsOf(row: HTMLElement | null): HTMLButtonElement[] {
  return row ? Array.from(row.querySelectorAll<HTMLButtonElement>("button:not([disabled])")) : [];
}
