"use client";

import { buttonClassName } from "@/components/ui/button";
import { type ReactNode, useEffect, useId, useRef } from "react";
import styles from "../record.module.css";

/**
 * A modal on the native <dialog>: the browser traps focus, makes the page behind inert and
 * closes on Escape. On open, focus goes to the element marked `data-autofocus`.
 */
export function ActionDialog({
  open,
  title,
  wide,
  onClose,
  children,
}: {
  open: boolean;
  title: string;
  wide?: boolean;
  onClose: () => void;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      dialog.showModal();
      // Without a marked field the browser's own choice (the first focusable element) stands.
      dialog.querySelector<HTMLElement>("[data-autofocus]")?.focus();
    } else if (!open && dialog.open) {
      dialog.close();
    }
  }, [open]);

  return (
    <dialog
      ref={ref}
      className={wide ? `${styles.dialog} ${styles.dialogWide}` : styles.dialog}
      aria-labelledby={titleId}
      onClose={onClose}
    >
      <div className={styles.dialogHead}>
        <h2 id={titleId} className={styles.dialogTitle}>
          {title}
        </h2>
        <button type="button" className={buttonClassName("subtle")} onClick={onClose}>
          Close<span className={styles.visuallyHidden}> (Escape)</span>
        </button>
      </div>
      {open ? children : null}
    </dialog>
  );
}
