import { buttonClassName } from "@/components/ui/button";
import type { Ref } from "react";
import { Time } from "../badges";
import styles from "../record.module.css";
import type { ReviewDetail } from "../types";

/**
 * Someone else changed the record after this person started: say what changed and let them
 * continue on the fresh version deliberately. Nothing they typed is lost.
 */
export function StaleNotice({
  base,
  current,
  stillAllowed,
  actionLabel,
  onContinue,
  ref,
}: {
  base: ReviewDetail;
  current: ReviewDetail;
  stillAllowed: boolean;
  actionLabel: string;
  onContinue: () => void;
  ref?: Ref<HTMLDivElement>;
}) {
  const seen = Math.max(0, ...base.history.map((h) => h.id));
  const newEntries = current.history.filter((h) => h.id > seen);
  const refreshed = current.version !== base.version;
  return (
    <div ref={ref} tabIndex={-1} role="alert" className={styles.noticeWarn}>
      <p className={styles.noticeTitle}>Changed by someone else while you were looking</p>
      {refreshed ? (
        <>
          <p>
            You started on version {base.version}; the record is now at version {current.version}
            {current.status !== base.status ? `, and its status moved from ${base.status} to ${current.status}` : ""}.
            Your input below is kept.
          </p>
          {newEntries.length > 0 ? (
            <ul className={styles.issueList}>
              {newEntries.map((entry) => (
                <li key={entry.id}>
                  <strong>{entry.action}</strong> by {entry.actor} (<Time iso={entry.at} />)
                  {entry.reason ? `: ${entry.reason}` : ""}
                </li>
              ))}
            </ul>
          ) : null}
          {stillAllowed ? (
            <button type="button" className={buttonClassName()} onClick={onContinue}>
              I have seen the changes: continue with version {current.version}
            </button>
          ) : (
            <p>
              <strong>{actionLabel}</strong> is no longer possible on the record as it is now ({current.status}). Close
              this dialog; your input stays here if it becomes possible again.
            </p>
          )}
        </>
      ) : (
        <p>The server refused your version; loading the fresh record…</p>
      )}
    </div>
  );
}
