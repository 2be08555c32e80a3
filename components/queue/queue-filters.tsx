"use client";

import { type FormEvent, useState } from "react";
import { Button } from "@/components/ui/button";
import { Field, Input, Select } from "@/components/ui/field";
import { type ParamPatch, useAppliedDraft } from "@/components/ui/use-url-params";
import { MineToggle } from "./mine-toggle";
import { CATEGORIES, ERROR_CLASS_NONE, STATUSES } from "./model";
import { ALL_STATUSES, DEFAULT_STATUS, type QueueState, TEXT_FILTERS, type TextFilter } from "./queue-params";
import styles from "./queue.module.css";

const ACTIVE = "open,replay-scheduled,replaying";
const STATUS_OPTIONS: { value: string; label: string }[] = [
  { value: DEFAULT_STATUS, label: "open" },
  { value: ACTIVE, label: "open, scheduled, replaying" },
  ...STATUSES.filter((s) => s !== DEFAULT_STATUS).map((s) => ({ value: s, label: s })),
  { value: ALL_STATUSES, label: "all statuses" },
];

const TEXT_LABELS: Record<TextFilter, { label: string; placeholder: string }> = {
  reason: { label: "Reason", placeholder: "e.g. retry-limit" },
  kind: { label: "Kind", placeholder: "e.g. invoice.reminder" },
  sequenceKey: { label: "Sequence key", placeholder: "e.g. invoice-417" },
  effectKey: { label: "Effect key", placeholder: "exact key" },
  errorClass: { label: "Error class", placeholder: `e.g. ETIMEDOUT, ${ERROR_CLASS_NONE}` },
};

type Draft = Record<TextFilter | "q", string>;

function draftOf(state: QueueState): Draft {
  const draft = { q: state.qText } as Draft;
  for (const key of TEXT_FILTERS) draft[key] = state.filters[key] ?? "";
  return draft;
}

/**
 * The queue's filters. Selects apply at once; the text fields apply together on Enter or
 * "Apply" (no request per keystroke on a million rows). Every value lives in the URL; the form
 * only holds what is typed and not yet applied.
 */
export function QueueFilters({
  state,
  reasons,
  setParams,
  canBeAssigned = false,
}: {
  state: QueueState;
  /** Known reasons (from the counts) offered as suggestions. */
  reasons: string[];
  setParams: (patch: ParamPatch) => void;
  /** The viewer may hold records (owner, support): only then is "Mine" offered. */
  canBeAssigned?: boolean;
}) {
  const [draft, setDraft, dirty] = useAppliedDraft(draftOf(state));
  const filtered = Object.keys(state.filters).some((k) => k !== "status") || state.status !== DEFAULT_STATUS;
  const qShort = draft.q.trim().length === 1;
  // On a phone only the search shows; the rest waits behind "Filters", which says how many are set.
  const [open, setOpen] = useState(false);
  const set =
    Object.keys(state.filters).filter((k) => k !== "q" && k !== "status").length +
    (state.status !== DEFAULT_STATUS ? 1 : 0) +
    (state.mine ? 1 : 0);

  const apply = (event: FormEvent) => {
    event.preventDefault();
    const patch: ParamPatch = {};
    for (const [key, value] of Object.entries(draft)) patch[key] = value.trim();
    setParams(patch);
  };
  const clear = () => {
    const patch: ParamPatch = { status: null, category: null, q: null, assignee: null };
    for (const key of TEXT_FILTERS) patch[key] = null;
    setDraft(draftOf({ ...state, filters: {}, qText: "" }));
    setParams(patch);
  };
  const statusOptions = STATUS_OPTIONS.some((o) => o.value === state.status)
    ? STATUS_OPTIONS
    : [...STATUS_OPTIONS, { value: state.status, label: state.status.replaceAll(",", ", ") }];
  const categoryCustom = state.category.includes(",");
  const text = (key: TextFilter) => (
    <Field key={key} label={TEXT_LABELS[key].label} htmlFor={`queue-${key}`}>
      {(control) => (
        <Input
          {...control}
          name={key}
          value={draft[key]}
          placeholder={TEXT_LABELS[key].placeholder}
          autoComplete="off"
          spellCheck={false}
          list={key === "reason" ? "queue-reason-options" : undefined}
          onChange={(event) => setDraft({ ...draft, [key]: event.target.value })}
        />
      )}
    </Field>
  );

  return (
    <form
      className={styles.filters}
      data-collapsed={open ? undefined : ""}
      onSubmit={apply}
      role="search"
      aria-label="Filter the queue"
    >
      <Field
        className={styles.filterQ}
        label="Search"
        htmlFor="queue-q"
        hintInline
        hint={
          qShort ? (
            <span className={styles.invalidHint}>Type at least 2 characters.</span>
          ) : (
            "Record id, message id, payload or error text · Enter applies · / to focus"
          )
        }
      >
        {(control) => (
          <Input
            {...control}
            name="q"
            type="search"
            value={draft.q}
            placeholder="Search records"
            autoComplete="off"
            spellCheck={false}
            aria-invalid={qShort || undefined}
            onChange={(event) => setDraft({ ...draft, q: event.target.value })}
          />
        )}
      </Field>
      <Button className={styles.filterToggle} variant="subtle" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? "Hide filters" : set ? `Filters (${set} set)` : "Filters"}
      </Button>
      <Field className={styles.filterStatus} label="Status" htmlFor="queue-status">
        {(control) => (
          <Select
            {...control}
            value={state.status}
            onChange={(event) =>
              setParams({ status: event.target.value === DEFAULT_STATUS ? null : event.target.value })
            }
          >
            {statusOptions.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </Select>
        )}
      </Field>
      <Field className={styles.filterCategory} label="Category" htmlFor="queue-category">
        {(control) => (
          <Select {...control} value={state.category} onChange={(event) => setParams({ category: event.target.value })}>
            <option value="">all categories</option>
            {CATEGORIES.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
            {categoryCustom ? <option value={state.category}>{state.category.replaceAll(",", ", ")}</option> : null}
          </Select>
        )}
      </Field>
      {canBeAssigned || state.mine ? <MineToggle mine={state.mine} setParams={setParams} /> : null}
      <div className={styles.filterRest}>{TEXT_FILTERS.map(text)}</div>
      {/* Last in the tab order (after every field), shown top right by the grid. */}
      <div className={styles.filterActions}>
        <Button type="submit" variant={dirty ? "primary" : "default"} disabled={!dirty}>
          Apply
        </Button>
        <Button variant="subtle" onClick={clear} disabled={!filtered && !dirty}>
          Clear filters
        </Button>
      </div>
      <datalist id="queue-reason-options">
        {reasons.map((r) => (
          <option key={r} value={r} />
        ))}
      </datalist>
    </form>
  );
}
