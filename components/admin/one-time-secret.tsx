"use client";

import { useEffect, useId, useRef, useState } from "react";
import { Button, ButtonRow } from "@/components/ui/button";
import { Input } from "@/components/ui/field";
import styles from "./admin.module.css";

/**
 * A secret the server hands over once (a new token, a password link): in a read-only field to
 * copy, with a plain warning that it will not be shown again. It takes the focus when it
 * appears, so a screen reader reads it out.
 */
export function OneTimeSecret({
  title,
  label,
  value,
  note,
  onDone,
}: {
  title: string;
  label: string;
  value: string;
  note: string;
  onDone: () => void;
}) {
  const id = useId();
  const boxRef = useRef<HTMLDivElement>(null);
  const [copied, setCopied] = useState(false);

  useEffect(() => {
    boxRef.current?.focus();
  }, []);

  return (
    <div ref={boxRef} tabIndex={-1} role="status" className={styles.secret}>
      <p className={styles.secretTitle}>{title}</p>
      <div>
        <label htmlFor={`${id}-secret`} className={styles.secretLabel}>
          {label}
        </label>
        <div className={styles.secretRow}>
          <Input
            id={`${id}-secret`}
            readOnly
            value={value}
            aria-describedby={`${id}-note`}
            onFocus={(event) => event.currentTarget.select()}
          />
          <Button
            size="sm"
            onClick={() => {
              void navigator.clipboard?.writeText(value).then(() => setCopied(true));
            }}
          >
            {copied ? "Copied" : "Copy"}
          </Button>
        </div>
      </div>
      <p id={`${id}-note`}>{note}</p>
      <ButtonRow>
        <Button variant="primary" onClick={onDone}>
          Done
        </Button>
      </ButtonRow>
    </div>
  );
}
