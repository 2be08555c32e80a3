"use client";

import { type ReactNode, useEffect, useId, useRef } from "react";
import { Button } from "./button";
import styles from "./ui.module.css";

/**
 * A modal on the native <dialog>: the browser traps focus, makes the page behind inert and
 * closes on Escape. On open, focus goes to the element marked `data-autofocus` (without one, the
 * browser's own choice, the first focusable element, stands). Its content, in a padded column,
 * is mounted only while it is open, so a form starts empty each time.
 */
export function ModalDialog({
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
        <Button variant="subtle" onClick={onClose}>
          Close<span className="rc-visually-hidden"> (Escape)</span>
        </Button>
      </div>
      {open ? <div className={styles.dialogBody}>{children}</div> : null}
    </dialog>
  );
}
