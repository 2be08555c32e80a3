"use client";

import { useRef, useState } from "react";

/**
 * A section's dialog for a change and the status line that reports it (`StatusLine` with
 * `ref={statusRef}`, showing `status`). `open(dialog)` clears the last report and opens it;
 * `show(dialog)` opens or moves on to another (a one-time secret after the form) and keeps it;
 * `done(text)` closes the dialog, reports `text` and moves the focus to the status line, so
 * keyboard and screen-reader users land on the result; `say(text)` reports without closing.
 */
export function useChangeDialog<D>() {
  const [dialog, setDialog] = useState<D | null>(null);
  const [status, setStatus] = useState("");
  const statusRef = useRef<HTMLParagraphElement>(null);

  function say(text: string) {
    setStatus(text);
    requestAnimationFrame(() => statusRef.current?.focus());
  }

  return {
    dialog,
    status,
    statusRef,
    open(next: D) {
      setStatus("");
      setDialog(next);
    },
    show: setDialog,
    close: () => setDialog(null),
    say,
    done(text: string) {
      setDialog(null);
      say(text);
    },
  };
}
