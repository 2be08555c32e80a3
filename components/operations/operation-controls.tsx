"use client";

import { type FormEvent, useId, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { Field, Input } from "@/components/ui/field";
import { ModalDialog } from "@/components/ui/modal-dialog";
import { type Problem, ProblemNotice } from "@/components/ui/notice";
import { ReasonForm } from "@/components/ui/reason-form";
import { Section } from "@/components/ui/section";
import { StatusLine } from "@/components/ui/states";
import type { Role } from "@/lib/access/client";
import { actingCount, type OperationState, type OperationView } from "@/lib/operations/client";
import { ConfirmForm } from "./confirm-form";
import { ACTION_LABEL, formatCount } from "./model";
import styles from "./operations.module.css";
import { problemOf } from "./problem";
import { StartAgain } from "./start-again";
import { useOperationControl } from "./use-operation-mutations";

type Dialog = "confirm" | "resume" | "abort";

const REASON_COPY: Record<Exclude<Dialog, "confirm">, { submit: string; done: string; explain: string }> = {
  resume: {
    submit: "Resume",
    done: "Resumed.",
    explain: "Dispatching starts again where it stopped, at the same rate.",
  },
  abort: {
    submit: "Abort the operation",
    done: "Aborted.",
    explain:
      "Nothing more is dispatched, for good. Replays not yet claimed are withdrawn (their records are open again); claimed ones finish.",
  },
};

/**
 * What the person may do now, as the server's `controls` says. Resume and abort ask for a reason
 * in a dialog; Pause is the emergency stop: one click, with an optional reason typed beside it.
 */
export function OperationControls({ operation, role }: { operation: OperationView; role: Role }) {
  const mutation = useOperationControl(operation.id);
  const [dialog, setDialog] = useState<Dialog | null>(null);
  // A notice says what a control did to the operation in the state it left it in: once the state
  // moves on (the canary is out, it completed), the notice is stale and goes.
  const [notice, setNotice] = useState<{ text: string; state: OperationState | null }>({ text: "", state: null });
  const announcement = notice.state === null || notice.state === operation.state ? notice.text : "";
  const setAnnouncement = (text: string) => setNotice({ text, state: null });
  const [problem, setProblem] = useState<Problem | null>(null);
  const announcementRef = useRef<HTMLParagraphElement>(null);
  const problemRef = useRef<HTMLDivElement>(null);
  const { controls, dryRun } = operation;
  const canary = operation.state === "awaiting-continue";
  const resumeLabel = canary ? "Continue after canary" : "Resume";
  const dryRunPending = mutation.isPending && mutation.variables?.control === "dry-run";
  const pausePending = mutation.isPending && mutation.variables?.control === "pause";
  const [pauseReason, setPauseReason] = useState("");
  const pauseReasonId = `${useId()}-pause-reason`;
  // The server refuses to start an operation whose dry run acts on no record (409 nothing-to-act-on).
  const nothingToStart = dryRun !== null && actingCount(dryRun.counts) === 0;

  function announce(text: string, state: OperationState | null = null) {
    setProblem(null);
    setNotice({ text, state });
    requestAnimationFrame(() => announcementRef.current?.focus());
  }

  /** A dialog's change was taken: close it and say so, for as long as the operation stays as it left it. */
  function done(text: string, fresh?: OperationView) {
    setDialog(null);
    announce(text, fresh?.state ?? null);
  }

  function dryRunNow() {
    setAnnouncement("");
    setProblem(null);
    mutation.mutate(
      { control: "dry-run" },
      {
        // Not done(): a dialog opened meanwhile stays open.
        onSuccess: (fresh) =>
          announce(`Dry run done: ${formatCount(fresh.total)} records checked. The numbers are below.`, fresh.state),
        onError: (error) => {
          setProblem(problemOf(error));
          requestAnimationFrame(() => problemRef.current?.focus());
        },
      },
    );
  }

  function pauseNow(event: FormEvent) {
    event.preventDefault();
    if (mutation.isPending) return;
    setAnnouncement("");
    setProblem(null);
    const reason = pauseReason.trim();
    mutation.mutate(
      { control: "pause", ...(reason ? { reason } : {}) },
      {
        onSuccess: (fresh) => {
          setPauseReason("");
          announce("Paused.", fresh.state);
        },
        onError: (error) => {
          setProblem(problemOf(error));
          requestAnimationFrame(() => problemRef.current?.focus());
        },
      },
    );
  }

  const dialogTitle =
    dialog === "confirm"
      ? "Confirm and start"
      : dialog === "resume"
        ? canary
          ? "Continue after the canary"
          : "Resume the operation"
        : "Abort the operation";

  return (
    <Section title="Controls">
      <ProblemNotice problem={problem} ref={problemRef} />
      {controls.length === 0 ? (
        operation.state === "completed" || operation.state === "aborted" ? (
          <>
            <p className={styles.lead}>This operation is {operation.state}: nothing more can be done with it.</p>
            <StartAgain operation={operation} role={role} />
          </>
        ) : (
          <p className={styles.lead}>Your role ({role}) may not control this operation.</p>
        )
      ) : (
        <div className={styles.controls}>
          {controls.includes("dry-run") ? (
            <Button onClick={dryRunNow} aria-disabled={mutation.isPending || undefined}>
              {dryRunPending ? "Running the dry run…" : dryRun ? "Dry run again" : "Dry run"}
            </Button>
          ) : null}
          {controls.includes("confirm") && !nothingToStart ? (
            <Button
              variant="primary"
              // Not while a dry run runs: the numbers to confirm are about to change.
              disabled={!dryRun || dryRunPending}
              aria-haspopup="dialog"
              aria-describedby={dryRun ? undefined : "operation-confirm-hint"}
              onClick={() => setDialog("confirm")}
            >
              Confirm and start…
            </Button>
          ) : null}
          {controls.includes("resume") ? (
            <Button variant={canary ? "primary" : "default"} aria-haspopup="dialog" onClick={() => setDialog("resume")}>
              {resumeLabel}…
            </Button>
          ) : null}
          {controls.includes("abort") ? (
            <Button variant="danger" aria-haspopup="dialog" onClick={() => setDialog("abort")}>
              Abort…
            </Button>
          ) : null}
        </div>
      )}
      {controls.includes("pause") ? (
        // Its own form: Enter in the reason pauses too. Nothing to confirm: a pause is undone by Resume.
        <form className={styles.pauseForm} onSubmit={pauseNow} aria-label="Pause">
          <Field
            label="Pause reason (optional)"
            htmlFor={pauseReasonId}
            hint="Goes to the decision log if given."
            hintInline
          >
            <Input
              id={pauseReasonId}
              value={pauseReason}
              maxLength={2000}
              aria-describedby={`${pauseReasonId}-hint`}
              onChange={(event) => setPauseReason(event.target.value)}
            />
          </Field>
          <Button type="submit" aria-disabled={mutation.isPending || undefined}>
            {pausePending ? "Pausing…" : "Pause"}
          </Button>
        </form>
      ) : null}
      {controls.includes("confirm") && !dryRun ? (
        <p id="operation-confirm-hint" className={styles.note}>
          Run a dry run first: starting needs its numbers on screen.
        </p>
      ) : null}
      {controls.includes("confirm") && nothingToStart ? (
        <p className={styles.note}>
          Nothing to start: the dry run found no record this {ACTION_LABEL[operation.action].toLowerCase()} would act on
          (the numbers are below). Abort it, or start another operation on records it fits.
        </p>
      ) : null}
      {canary && controls.includes("resume") ? (
        <p className={styles.note}>
          The canary&apos;s {formatCount(operation.canarySize)} records were dispatched. Check their outcomes below,
          then continue or abort.
        </p>
      ) : null}
      <StatusLine ref={announcementRef}>{announcement}</StatusLine>
      <ModalDialog open={dialog !== null} title={dialogTitle} onClose={() => setDialog(null)}>
        {dialog === "confirm" && dryRun ? (
          <ConfirmForm
            operation={operation}
            dryRun={dryRun}
            onConfirm={(body) =>
              mutation
                .mutateAsync({ control: "confirm", ...body })
                .then((fresh) => done("Confirmed: the operation runs.", fresh))
            }
          />
        ) : dialog && dialog !== "confirm" ? (
          <ReasonForm
            key={dialog}
            explanation={<p className={styles.lead}>{REASON_COPY[dialog].explain}</p>}
            submitLabel={dialog === "resume" ? resumeLabel : REASON_COPY[dialog].submit}
            danger={dialog === "abort"}
            describeProblem={problemOf}
            onSubmit={(reason) =>
              mutation
                .mutateAsync({ control: dialog, reason })
                .then((fresh) =>
                  done(dialog === "resume" && canary ? "Continued after the canary." : REASON_COPY[dialog].done, fresh),
                )
            }
          />
        ) : null}
      </ModalDialog>
    </Section>
  );
}
