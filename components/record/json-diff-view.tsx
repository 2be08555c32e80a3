import type { JsonChange } from "./json-diff";
import styles from "./record.module.css";

const KIND_TEXT: Record<JsonChange["kind"], string> = {
  added: "+ added",
  removed: "− removed",
  changed: "~ changed",
};

function compact(value: unknown): string {
  if (value === undefined) return "";
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text;
}

/** A table of changes by path; values are text, never markup. */
export function JsonDiffView({ changes, caption }: { changes: JsonChange[]; caption: string }) {
  if (changes.length === 0) {
    return <p className="rc-muted">{caption}: no differences.</p>;
  }
  return (
    <div className={styles.tableScroll}>
      <table className={styles.diffTable}>
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Change</th>
            <th scope="col">Path</th>
            <th scope="col">Original</th>
            <th scope="col">New</th>
          </tr>
        </thead>
        <tbody>
          {changes.map((change) => (
            <tr key={`${change.kind}:${change.path}`} data-kind={change.kind}>
              <td className={styles.diffKind}>{KIND_TEXT[change.kind]}</td>
              <td>
                <code>{change.path}</code>
              </td>
              <td className={styles.diffBefore}>
                {change.kind === "added" ? (
                  <span className="rc-muted">(absent)</span>
                ) : (
                  <code>{compact(change.before)}</code>
                )}
              </td>
              <td className={styles.diffAfter}>
                {change.kind === "removed" ? (
                  <span className="rc-muted">(absent)</span>
                ) : (
                  <code>{compact(change.after)}</code>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
