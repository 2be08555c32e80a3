"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";
import { ModalDialog } from "@/components/ui/modal-dialog";
import { useShortcuts } from "./row-keys";
import styles from "./queue.module.css";

/** The queue's keys, as the dialog lists them. */
export const QUEUE_SHORTCUTS: { keys: string[]; what: string }[] = [
  { keys: ["j"], what: "Next record" },
  { keys: ["k"], what: "Previous record" },
  { keys: ["Enter"], what: "Open the record" },
  { keys: ["x"], what: "Select or unselect the record (for a bulk operation); shift-click a box: the range" },
  { keys: ["[", "]"], what: "On a record opened from here: the previous or next record of this list" },
  { keys: ["/"], what: "Search" },
  { keys: ["?"], what: "Show these shortcuts" },
];

/**
 * "Keyboard shortcuts" beside the results heading, and `?` anywhere on the queue: a dialog that
 * lists the keys. Keys are ignored while typing in a field.
 */
export function QueueShortcuts() {
  const [open, setOpen] = useState(false);
  useShortcuts({ "?": () => setOpen(true) });
  return (
    <>
      <Button variant="subtle" size="sm" onClick={() => setOpen(true)} aria-keyshortcuts="?">
        Shortcuts <kbd className={styles.kbd}>?</kbd>
      </Button>
      <ModalDialog open={open} title="Keyboard shortcuts" onClose={() => setOpen(false)}>
        <dl className={styles.shortcutList}>
          {QUEUE_SHORTCUTS.map((s) => (
            <div key={s.what}>
              <dt>
                {s.keys.map((k) => (
                  <kbd key={k} className={styles.kbd}>
                    {k}
                  </kbd>
                ))}
              </dt>
              <dd>{s.what}</dd>
            </div>
          ))}
        </dl>
        <p className="rc-muted">Keys are ignored while you type in a field.</p>
      </ModalDialog>
    </>
  );
}
