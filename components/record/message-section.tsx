"use client";

import { useId, useMemo, useState } from "react";
import { Section } from "@/components/ui/section";
import styles from "./record.module.css";

function prettyPrint(text: string): { ok: true; text: string } | { ok: false } {
  try {
    return { ok: true, text: JSON.stringify(JSON.parse(text), null, 2) };
  } catch {
    return { ok: false };
  }
}

/**
 * The message exactly as received, as text (React escapes it: markup inside a payload is shown,
 * never run). Pretty-printing is a view built by the browser's parser, so it is opt-in and says so.
 */
export function MessageSection({ messageText }: { messageText: string }) {
  const [pretty, setPretty] = useState(false);
  const toggleId = useId();
  const noteId = useId();
  const formatted = useMemo(() => (pretty ? prettyPrint(messageText) : null), [pretty, messageText]);
  const shown = formatted?.ok ? formatted.text : messageText;
  return (
    <Section
      title="Message as received"
      layout="flow"
      actions={
        <label className={styles.switch} htmlFor={toggleId}>
          <input
            id={toggleId}
            type="checkbox"
            checked={pretty}
            onChange={(event) => setPretty(event.target.checked)}
            aria-describedby={noteId}
          />
          Pretty-print
        </label>
      }
    >
      <p id={noteId} className={styles.hint}>
        {pretty
          ? "Pretty-printed by your browser: key order and very large numbers may differ from what was received. Untick to see the exact text."
          : "The exact text the consumer received, unchanged. It is kept forever; corrections become revisions."}
      </p>
      {formatted && !formatted.ok ? (
        <p className={styles.hint}>This text is not valid JSON, so it is shown raw.</p>
      ) : null}
      <pre className={styles.pre} tabIndex={0} aria-label={pretty ? "Message, pretty-printed" : "Message, exact text"}>
        {shown}
      </pre>
    </Section>
  );
}
