"use client";

import { useEffect, useRef } from "react";

// The queue's keyboard: j/k between rows, x ticks the row, ? lists the keys (Gmail's and
// GitHub's letters). A key counts only when a person is not typing: in a text field, a select or
// an editable region, the letter is theirs; with Ctrl, Cmd or Alt it is the browser's; inside an
// open dialog it belongs to the dialog.

const NOT_TYPING_INPUTS = new Set(["checkbox", "radio", "button", "submit", "reset", "range", "color", "file"]);

/** True when the key was pressed where text goes (so it must not be taken as a shortcut). */
export function isTypingTarget(target: EventTarget | null): boolean {
  if (!target || typeof (target as HTMLElement).tagName !== "string") return false;
  const element = target as HTMLElement;
  if (element.isContentEditable || element.closest("[contenteditable='true']")) return true;
  const tag = element.tagName;
  if (tag === "TEXTAREA" || tag === "SELECT") return true;
  if (tag === "INPUT") return !NOT_TYPING_INPUTS.has((element as HTMLInputElement).type);
  return false;
}

/** The shortcut a keydown stands for, or null when it is not one (typing, modifiers, a dialog). */
export function shortcutOf(event: KeyboardEvent): string | null {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return null;
  if (isTypingTarget(event.target)) return null;
  const target = event.target as HTMLElement | null;
  if (target && typeof target.closest === "function" && target.closest("dialog[open]")) return null;
  return event.key;
}

/**
 * Calls `handlers[key]` for each shortcut pressed anywhere on the page (window), as long as the
 * component is mounted. A handler that returns false leaves the key to the browser.
 */
export function useShortcuts(handlers: Record<string, (event: KeyboardEvent) => boolean | void>): void {
  // The latest handlers, read at keydown: registering once keeps the listener order stable.
  const latest = useRef(handlers);
  useEffect(() => {
    latest.current = handlers;
  });
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const key = shortcutOf(event);
      const handler = key === null ? undefined : latest.current[key];
      if (!handler) return;
      if (handler(event) !== false) event.preventDefault();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
}
