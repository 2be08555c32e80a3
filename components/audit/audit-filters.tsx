"use client";

import type { FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Field, Input } from "@/components/ui/field";
import { type ParamPatch, useAppliedDraft } from "@/components/ui/use-url-params";
import { type Times, useTimes } from "@/components/ui/time-zone";
import { AUDIT_FILTERS, type AuditFilters } from "./audit-params";
import styles from "./audit.module.css";
import { isUuid } from "@/lib/domain/ids";

type Draft = Record<(typeof AUDIT_FILTERS)[number], string>;

/** What a time filter's control shows for an instant of the URL, in the person's zone. */
const inputOf = (iso: string | undefined, times: Times) => (iso ? times.toInput(iso, { seconds: true }) : "");

function draftOf(filters: AuditFilters, times: Times): Draft {
  return {
    actor: filters.actor ?? "",
    action: filters.action ?? "",
    reviewId: filters.reviewId ?? "",
    effectKey: filters.effectKey ?? "",
    from: inputOf(filters.from, times),
    to: inputOf(filters.to, times),
  };
}

const EMPTY: Draft = { actor: "", action: "", reviewId: "", effectKey: "", from: "", to: "" };

/**
 * The decision log's filters. They apply together on Enter or "Apply"; the applied values live
 * in the URL (from/to as ISO instants), the form only holds what is not applied yet.
 */
export function AuditFilterForm({
  filters,
  setParams,
  actions = [],
}: {
  filters: AuditFilters;
  setParams: (patch: ParamPatch) => void;
  /** The actions the log holds, offered as the Action field's choices (lib/audit/list.ts). */
  actions?: string[];
}) {
  const times = useTimes();
  const [draft, setDraft, dirty] = useAppliedDraft(draftOf(filters, times));
  const any = Object.keys(filters).length > 0;

  const reviewIdBad = draft.reviewId.trim() !== "" && !isUuid(draft.reviewId.trim());
  const from = times.fromInput(draft.from) ?? "";
  const to = times.fromInput(draft.to) ?? "";
  const rangeBad = from !== "" && to !== "" && to < from;
  const invalid = reviewIdBad || rangeBad;

  const apply = (event: FormEvent) => {
    event.preventDefault();
    if (invalid) return;
    setParams({
      actor: draft.actor.trim(),
      action: draft.action.trim(),
      reviewId: draft.reviewId.trim().toLowerCase(),
      effectKey: draft.effectKey.trim(),
      from,
      to,
    });
  };
  const clear = () => {
    setDraft(EMPTY);
    setParams(Object.fromEntries(AUDIT_FILTERS.map((key) => [key, null])));
  };
  // Actor and action match any part, ignoring case (lib/audit/list.ts); the action's input offers
  // the log's actions as choices (a datalist: typing a part still works).
  const input = (key: "actor" | "action" | "effectKey", label: string, placeholder: string, hint?: string) => (
    <Field label={label} htmlFor={`audit-${key}`} hint={<span className={styles.hint}>{hint ?? "\u00a0"}</span>}>
      <Input
        id={`audit-${key}`}
        value={draft[key]}
        placeholder={placeholder}
        autoComplete="off"
        spellCheck={false}
        list={key === "action" && actions.length > 0 ? "audit-action-choices" : undefined}
        aria-describedby={hint ? `audit-${key}-hint` : undefined}
        onChange={(event) => setDraft({ ...draft, [key]: event.target.value })}
      />
    </Field>
  );

  return (
    <form className={styles.filters} onSubmit={apply} role="search" aria-label="Filter the decision log">
      {input("actor", "Actor", "e.g. support", "Any part of the name")}
      {input("action", "Action", "e.g. replay", "Any part, or choose one")}
      {actions.length > 0 ? (
        <datalist id="audit-action-choices">
          {actions.map((action) => (
            <option key={action} value={action} />
          ))}
        </datalist>
      ) : null}
      <Field
        label="Record"
        htmlFor="audit-reviewId"
        hint={
          <span className={`${styles.hint} ${reviewIdBad ? styles.invalid : ""}`}>
            {reviewIdBad ? "A record id is a UUID." : "\u00a0"}
          </span>
        }
      >
        <Input
          id="audit-reviewId"
          value={draft.reviewId}
          placeholder="record id (UUID)"
          autoComplete="off"
          spellCheck={false}
          aria-invalid={reviewIdBad || undefined}
          aria-describedby="audit-reviewId-hint"
          onChange={(event) => setDraft({ ...draft, reviewId: event.target.value })}
        />
      </Field>
      {input("effectKey", "Effect key", "exact key")}
      <Field
        label={`From (${times.label}, inclusive)`}
        htmlFor="audit-from"
        hint={<span className={styles.hint}>&nbsp;</span>}
      >
        <Input
          id="audit-from"
          type="datetime-local"
          value={draft.from}
          onChange={(event) => setDraft({ ...draft, from: event.target.value })}
        />
      </Field>
      <Field
        label={`To (${times.label}, exclusive)`}
        htmlFor="audit-to"
        hint={
          <span className={`${styles.hint} ${rangeBad ? styles.invalid : ""}`}>
            {rangeBad ? "Must not be before From." : "\u00a0"}
          </span>
        }
      >
        <Input
          id="audit-to"
          type="datetime-local"
          value={draft.to}
          aria-invalid={rangeBad || undefined}
          aria-describedby="audit-to-hint"
          onChange={(event) => setDraft({ ...draft, to: event.target.value })}
        />
      </Field>
      <div className={styles.filterActions}>
        <Button type="submit" variant={dirty && !invalid ? "primary" : "default"} disabled={!dirty || invalid}>
          Apply
        </Button>
        <Button variant="subtle" onClick={clear} disabled={!any && !dirty}>
          Clear
        </Button>
      </div>
    </form>
  );
}
