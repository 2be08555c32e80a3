import Link from "next/link";
import type { Selection } from "@/lib/operations/client";
import { FILTER_KEYS } from "./selection-params";
import { formatCount } from "./model";

// A selection in words, as the person chose it (the form) or as it was frozen (the operation).

const FILTER_LABEL: Record<string, string> = {
  status: "status",
  category: "category",
  reason: "reason",
  kind: "kind",
  errorClass: "error class",
  sequenceKey: "sequence key",
  effectKey: "effect key",
  messageId: "message id",
  q: "search",
  assignee: "assigned to",
};

/** `assignee` as a person reads it: `me` is the person creating the operation (then kept as an id). */
function assigneeText(value: string): string {
  if (value === "me") return "you (kept as your person id when the operation is created)";
  if (value === "none") return "nobody (unassigned)";
  return `the person with id ${value}`;
}

const ACTIVE = "open, replay-scheduled, replaying";
/** A frozen selection may hold 10,000 ids; the page lists the first ones (the items table has all). */
const IDS_SHOWN = 100;

export function selectionSummary(selection: Selection): string {
  switch (selection.type) {
    case "ids":
      return `${formatCount(selection.ids.length)} ${selection.ids.length === 1 ? "record" : "records"} chosen one by one`;
    case "filter":
      return "Every record that matches the filter";
    case "group":
      return `Every record of one cause that awaits an outcome (${ACTIVE})`;
    case "unfinished":
      return "The records an earlier operation did not finish: held again or failed, withdrawn, skipped or never sent";
  }
}

/** The selection's terms as label/value pairs, shown as a definition list. */
export function selectionTerms(selection: Selection): { label: string; value: string }[] {
  switch (selection.type) {
    case "ids":
      return [];
    case "filter": {
      const known = FILTER_KEYS.filter((key) => selection.filter[key] !== undefined);
      const other = Object.keys(selection.filter).filter((key) => !(FILTER_KEYS as readonly string[]).includes(key));
      return [...known, ...other].map((key) => ({
        label: FILTER_LABEL[key] ?? key,
        value:
          key === "assignee"
            ? assigneeText(String(selection.filter[key]))
            : String(selection.filter[key]).replaceAll(",", ", "),
      }));
    }
    case "group":
      return [
        { label: "kind", value: selection.group.kind ?? "(no kind)" },
        { label: "reason", value: selection.group.reason },
        { label: "error class", value: selection.group.errorClass ?? "(none)" },
      ];
    case "unfinished":
      return [{ label: "operation", value: selection.operationId }];
  }
}

/** The selection, described: a sentence, its terms, and for ids the list of record links (folded). */
export function SelectionDescription({ selection, className }: { selection: Selection; className?: string }) {
  const terms = selectionTerms(selection);
  return (
    <div className={className}>
      <p>{selectionSummary(selection)}</p>
      {terms.length > 0 ? (
        <dl>
          {terms.map((term) => (
            <div key={term.label}>
              <dt>{term.label}</dt>
              <dd>
                <code>{term.value}</code>
              </dd>
            </div>
          ))}
        </dl>
      ) : null}
      {selection.type === "unfinished" ? (
        <p>
          <Link href={`/operations/${encodeURIComponent(selection.operationId)}`} prefetch={false}>
            Open that operation
          </Link>
        </p>
      ) : null}
      {selection.type === "ids" ? (
        <details>
          <summary>Show the record ids</summary>
          <ul>
            {selection.ids.slice(0, IDS_SHOWN).map((id) => (
              <li key={id}>
                <Link href={`/reviews/${encodeURIComponent(id)}`} prefetch={false}>
                  <code>{id}</code>
                </Link>
              </li>
            ))}
          </ul>
          {selection.ids.length > IDS_SHOWN ? <p>and {formatCount(selection.ids.length - IDS_SHOWN)} more.</p> : null}
        </details>
      ) : null}
    </div>
  );
}
