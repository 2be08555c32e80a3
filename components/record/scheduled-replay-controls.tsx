"use client";

import { useId, useState } from "react";
import { Button } from "@/components/ui/button";
import { Field, Input } from "@/components/ui/field";
import { ModalDialog } from "@/components/ui/modal-dialog";
import { ReasonForm } from "@/components/ui/reason-form";
import { Section } from "@/components/ui/section";
import { StatusLine } from "@/components/ui/states";
import { useChangeDialog } from "@/components/ui/use-change-dialog";
import type { Authority } from "@/lib/reviews/client";
import { actionRefusal } from "@/lib/reviews/client";
import { untilText } from "./actions/run-at";
import { Time } from "./badges";
import { useTimes } from "@/components/ui/time-zone";
import styles from "./controls.module.css";
import type { ReviewDetail } from "./types";
import { useRecordAction } from "./use-record";

type Control = "run-now" | "reschedule" | "unschedule";

const TITLES: Record<Control, string> = {
  "run-now": "Run the replay now",
  reschedule: "Reschedule the replay",
  unschedule: "Unschedule the replay",
};

const EXPLANATIONS: Record<Control, string> = {
  "run-now":
    "The replay becomes due now: the next consumer that claims replays takes it (after any earlier replay of its sequence key).",
  reschedule: "The replay stays scheduled and becomes due at the new time.",
  unschedule:
    "The replay is withdrawn and the record goes back to open. Nothing else is undone: a correction stays, a skipped range stays skipped, a journal entry cleared by the provider's answer stays cleared.",
};

/**
 * Run now, reschedule, unschedule (ADR 0028): for an owner, while the record's replay is
 * scheduled and no consumer has claimed it. Each needs a reason; the server refuses (409) when a
 * consumer claims it meanwhile, or when a bulk operation owns it.
 */
export function ScheduledReplayControls({ record, role }: { record: ReviewDetail; role: Authority }) {
  const { dialog, status: report, statusRef, open, close, done: reportDone } = useChangeDialog<Control>();
  // A report describes the record at the version the control left it at; once it moves on
  // (replayed again, someone else's action), the report is stale and goes.
  const [reportVersion, setReportVersion] = useState<number | null>(null);
  const status = reportVersion === null || reportVersion === record.version ? report : "";
  const done = (text: string, fresh: { version: number }) => {
    setReportVersion(fresh.version);
    reportDone(text);
  };
  const mutation = useRecordAction(record.id);
  const times = useTimes();
  const replay = record.replays.find((r) => r.state === "scheduled");
  if (record.status !== "replay-scheduled" || actionRefusal("run-now", record, role) !== null) {
    // Keep the report of a control just used (unschedule leaves the record open).
    return status ? <StatusLine ref={statusRef}>{status}</StatusLine> : null;
  }

  const send = (action: Control, reason: string, runAt?: string) =>
    mutation.mutateAsync({ action, expectedVersion: record.version, reason, ...(runAt ? { runAt } : {}) });

  return (
    <Section title="Scheduled replay">
      <div className={styles.controls}>
        <p className={styles.current}>
          {replay ? (
            <>
              Due <Time iso={replay.runAt} />
            </>
          ) : (
            "A replay is scheduled."
          )}
        </p>
        <Button size="sm" variant="primary" aria-haspopup="dialog" onClick={() => open("run-now")}>
          Run now…
        </Button>
        <Button size="sm" aria-haspopup="dialog" onClick={() => open("reschedule")}>
          Reschedule…
        </Button>
        <Button size="sm" aria-haspopup="dialog" onClick={() => open("unschedule")}>
          Unschedule…
        </Button>
        {/* In the row, not under it: an empty status line would leave a blank band in the box. */}
        <StatusLine ref={statusRef}>{status}</StatusLine>
      </div>
      <ModalDialog open={dialog !== null} title={dialog ? TITLES[dialog] : ""} onClose={close}>
        {dialog === "reschedule" ? (
          <RescheduleForm
            dueAt={replay?.runAt ?? null}
            onSubmit={(runAt, reason) =>
              send("reschedule", reason, runAt).then((fresh) => done(`Rescheduled: due ${times.format(runAt)}.`, fresh))
            }
          />
        ) : dialog ? (
          <ReasonForm
            explanation={<p>{EXPLANATIONS[dialog]}</p>}
            submitLabel={dialog === "run-now" ? "Run now" : "Unschedule"}
            danger={dialog === "unschedule"}
            onSubmit={(reason) =>
              send(dialog, reason).then((fresh) =>
                done(dialog === "run-now" ? "The replay is due now." : "Unscheduled: the record is open again.", fresh),
              )
            }
          />
        ) : null}
      </ModalDialog>
    </Section>
  );
}

/**
 * The new time in the person's zone, as every time on the page (the replay's own "At a time"
 * reads it the same way), starting at the current due time; the instant is shown as it is typed.
 */
function RescheduleForm({
  dueAt,
  onSubmit,
}: {
  dueAt: string | null;
  onSubmit: (runAt: string, reason: string) => Promise<unknown>;
}) {
  const inputId = `${useId()}-run-at`;
  const times = useTimes();
  // The clock is read when the time is chosen (render stays pure); the server checks it again.
  const [{ local, chosenAt }, setChoice] = useState(() => ({
    local: dueAt ? times.toInput(dueAt) : "",
    chosenAt: Date.now(),
  }));
  const iso = times.fromInput(local);
  const future = iso !== null && Date.parse(iso) > chosenAt;
  return (
    <ReasonForm
      explanation={<p>{EXPLANATIONS.reschedule}</p>}
      fields={
        <Field label={`New time (${times.label})`} htmlFor={inputId}>
          <Input
            id={inputId}
            type="datetime-local"
            value={local}
            data-autofocus=""
            aria-describedby={`${inputId}-utc`}
            onChange={(event) => setChoice({ local: event.target.value, chosenAt: Date.now() })}
          />
          <p id={`${inputId}-utc`} className={styles.preview} aria-live="polite">
            {iso
              ? `Due ${times.format(iso, { seconds: false })} (${untilText(iso, chosenAt)})`
              : `Date and time in ${times.label}, as every time on this page.`}
            {iso && !future ? " (in the past: choose a later time)" : null}
          </p>
        </Field>
      }
      required={[{ id: inputId, filled: future, message: "Choose a time in the future." }]}
      submitLabel="Reschedule"
      onSubmit={(reason) => onSubmit(iso!, reason)}
    />
  );
}
