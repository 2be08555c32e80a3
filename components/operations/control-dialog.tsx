"use client";

import type { ReactNode } from "react";
import { ModalDialog } from "@/components/ui/modal-dialog";
import styles from "./operations.module.css";

/** The console's modal dialog, with the padded column an operation's control form sits in. */
export function ControlDialog({
  open,
  title,
  onClose,
  children,
}: {
  open: boolean;
  title: string;
  onClose: () => void;
  children: ReactNode;
}) {
  return (
    <ModalDialog open={open} title={title} onClose={onClose}>
      <div className={styles.dialogBody}>{children}</div>
    </ModalDialog>
  );
}
