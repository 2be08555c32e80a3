"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { Button, ButtonRow } from "@/components/ui/button";
import { Field, FieldError, Input, Select } from "@/components/ui/field";
import { Section } from "@/components/ui/section";
import type { OperationAction } from "@/lib/operations/client";
import { REVIEW_STATUSES } from "@/lib/reviews/client";
import styles from "./operations.module.css";
import { newOperationHref } from "./selection-params";

const FILTER_FIELDS = [
  { key: "reason", label: "Reason", hint: "The records' reason, exactly (e.g. sequence-gap)." },
  { key: "kind", label: "Kind", hint: "The message kind, exactly (e.g. invoice.reminder)." },
  { key: "errorClass", label: "Error class", hint: "As the queue shows it." },
] as const;

/**
 * /operations/new without a selection (the "New operation" button): choose the records by filter
 * here, or go to the queue to tick them. Leads to the same page with `filter` in the link, where
 * the count of matching records shows before anything is created.
 */
export function ChooseSelection({ action }: { action: OperationAction }) {
  const router = useRouter();
  const [values, setValues] = useState<Record<string, string>>({ status: "open" });
  const [empty, setEmpty] = useState(false);

  function submit(event: FormEvent) {
    event.preventDefault();
    const filter = Object.fromEntries(
      Object.entries(values)
        .map(([key, value]) => [key, value.trim()] as const)
        .filter(([, value]) => value !== ""),
    );
    // A status alone would select a whole status: ask for something narrower.
    if (Object.keys(filter).filter((key) => key !== "status").length === 0) {
      setEmpty(true);
      requestAnimationFrame(() => document.getElementById("choose-reason")?.focus());
      return;
    }
    router.push(newOperationHref(action, { type: "filter", filter }));
  }

  return (
    <Section title="Choose the records">
      <p className={styles.lead}>
        Tick records in the <Link href="/reviews">queue</Link>, pick a cause in the{" "}
        <Link href="/reviews?view=groups">grouped view</Link>, or select them by filter here.
      </p>
      <form className={styles.form} onSubmit={submit} noValidate aria-label="Choose records by filter">
        <Field label="Status" htmlFor="choose-status">
          <Select
            id="choose-status"
            value={values.status ?? ""}
            onChange={(event) => setValues((v) => ({ ...v, status: event.target.value }))}
          >
            <option value="">any</option>
            {REVIEW_STATUSES.map((status) => (
              <option key={status} value={status}>
                {status}
              </option>
            ))}
          </Select>
        </Field>
        {FILTER_FIELDS.map(({ key, label, hint }, index) => (
          <Field
            key={key}
            label={label}
            htmlFor={`choose-${key}`}
            hint={hint}
            error={index === 0 ? <FieldError id="choose-error" messages={empty ? [EMPTY] : undefined} /> : undefined}
          >
            <Input
              id={`choose-${key}`}
              value={values[key] ?? ""}
              aria-describedby={`choose-${key}-hint${index === 0 && empty ? " choose-error" : ""}`}
              aria-invalid={index === 0 && empty ? true : undefined}
              onChange={(event) => {
                setEmpty(false);
                setValues((v) => ({ ...v, [key]: event.target.value }));
              }}
            />
          </Field>
        ))}
        <ButtonRow>
          <Button type="submit" variant="primary">
            Use this filter
          </Button>
          <span className={styles.note}>The next step shows how many records match; nothing is created yet.</span>
        </ButtonRow>
      </form>
    </Section>
  );
}

const EMPTY = "Give a reason, a kind or an error class: a status alone selects too much.";
