"use client";

import { useQuery } from "@tanstack/react-query";
import { useId, useState } from "react";
import { Button } from "@/components/ui/button";
import { Field, Select } from "@/components/ui/field";
import { ModalDialog } from "@/components/ui/modal-dialog";
import { ReasonForm } from "@/components/ui/reason-form";
import { Section } from "@/components/ui/section";
import { StatusLine } from "@/components/ui/states";
import { useChangeDialog } from "@/components/ui/use-change-dialog";
import type { Authority } from "@/lib/reviews/client";
import { apiGet } from "@/lib/client/api";
import { actionRefusal } from "@/lib/reviews/client";
import styles from "./controls.module.css";
import type { ReviewDetail } from "./types";
import { useRecordAction } from "./use-record";

/** A person the record can be assigned to, as GET /api/v1/assignees lists them. */
interface AssigneeOption {
  id: string;
  name: string;
  email: string;
  role: "owner" | "support";
}

type Change = "person" | "unassign";

const TITLES: Record<Change, string> = {
  person: "Assign to a person",
  unassign: "Unassign",
};

/**
 * Taking a record for oneself decides nothing about its effect: it needs no typed reason. The
 * history and the decision log still say who took it, with this reason.
 */
export const ASSIGN_TO_ME_REASON = "took the record";

function display(person: { name: string; email: string }): string {
  return person.name && person.name !== person.email ? `${person.name} (${person.email})` : person.email;
}

/**
 * Who looks after the record (ADR 0028): shown to everyone; owners and support may assign it to
 * themselves or to another owner or support person, or unassign it, each with a reason that goes
 * to the history and the decision log.
 */
export function Assignment({ record, role, userId }: { record: ReviewDetail; role: Authority; userId?: string }) {
  const { dialog, status, statusRef, open, close, done, say } = useChangeDialog<Change>();
  const mutation = useRecordAction(record.id);
  const assignee = record.assignee ?? null;
  const mayAssign = actionRefusal("assign", record, role) === null;
  const mine = Boolean(userId && assignee?.id === userId);

  const send = (target: string | null, reason: string) =>
    mutation.mutateAsync({ action: "assign", expectedVersion: record.version, reason, assignee: target });

  return (
    <Section title="Assignment">
      <div className={styles.controls}>
        <p className={styles.current}>
          {assignee ? (
            <>
              Assigned to <strong>{display(assignee)}</strong>
              {mine ? " (you)" : null}
            </>
          ) : (
            <span className="rc-muted">Not assigned.</span>
          )}
        </p>
        {mayAssign ? (
          <>
            {userId && !mine ? (
              <Button
                size="sm"
                aria-disabled={mutation.isPending || undefined}
                onClick={() => {
                  if (mutation.isPending) return;
                  send("me", ASSIGN_TO_ME_REASON).then(
                    () => say("Assigned to you."),
                    (error: Error) => say(`Not assigned: ${error.message}`),
                  );
                }}
              >
                Assign to me
              </Button>
            ) : null}
            <Button size="sm" aria-haspopup="dialog" onClick={() => open("person")}>
              Assign to a person…
            </Button>
            {assignee ? (
              <Button size="sm" aria-haspopup="dialog" onClick={() => open("unassign")}>
                Unassign…
              </Button>
            ) : null}
          </>
        ) : null}
        {/* In the row, not under it: an empty status line would leave a blank band in the box. */}
        <StatusLine ref={statusRef}>{status}</StatusLine>
      </div>
      <ModalDialog open={dialog !== null} title={dialog ? TITLES[dialog] : ""} onClose={close}>
        {dialog === "person" ? (
          <PersonForm
            currentId={assignee?.id ?? null}
            onSubmit={(person, reason) => send(person.id, reason).then(() => done(`Assigned to ${display(person)}.`))}
          />
        ) : dialog ? (
          <ReasonForm
            explanation={<p>The record will no longer be assigned to {assignee ? display(assignee) : "anyone"}.</p>}
            submitLabel={TITLES[dialog]}
            onSubmit={(reason) => send(null, reason).then(() => done("The record is no longer assigned."))}
          />
        ) : null}
      </ModalDialog>
    </Section>
  );
}

/** The people (owners and support, not disabled), then the reason. */
function PersonForm({
  currentId,
  onSubmit,
}: {
  currentId: string | null;
  onSubmit: (person: AssigneeOption, reason: string) => Promise<unknown>;
}) {
  const selectId = `${useId()}-person`;
  const [chosen, setChosen] = useState("");
  const people = useQuery({
    queryKey: ["assignees"],
    queryFn: ({ signal }) => apiGet<{ people: AssigneeOption[] }>("/api/v1/assignees", signal),
  });
  const options = (people.data?.people ?? []).filter((p) => p.id !== currentId);
  const person = options.find((p) => p.id === chosen);

  return (
    <ReasonForm
      fields={
        <Field label="Person" htmlFor={selectId}>
          <Select id={selectId} value={chosen} data-autofocus="" onChange={(event) => setChosen(event.target.value)}>
            <option value="">
              {people.isPending ? "Loading people…" : people.isError ? "Could not load people" : "Choose a person"}
            </option>
            {options.map((p) => (
              <option key={p.id} value={p.id}>
                {display(p)} · {p.role}
              </option>
            ))}
          </Select>
        </Field>
      }
      required={[{ id: selectId, filled: Boolean(person), message: "Choose the person to assign." }]}
      submitLabel="Assign"
      onSubmit={(reason) => onSubmit(person!, reason)}
    />
  );
}
