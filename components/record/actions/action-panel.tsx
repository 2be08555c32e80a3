"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { describeDecision } from "@/components/approvals/describe";
import { approvalsOptions } from "@/components/approvals/queries";
import { useEffect, useRef, useState } from "react";
import { buttonClassName } from "@/components/ui/button";
import { ModalDialog } from "@/components/ui/modal-dialog";
import { StatusLine } from "@/components/ui/states";
import { type Role, canAnywhere } from "@/lib/access/client";
import type { Verdict } from "@/lib/operations/client";
import { ACTION_RULES, allowedActions, type ActionName, type Authority, permits } from "@/lib/reviews/client";
import styles from "../record.module.css";
import type { ReviewDetail } from "../types";
import { ActionForm } from "./action-form";
import { type ActionDraft, newDraft } from "./draft";
import { replayCanApply, useReplayVerdict, VerdictLine } from "./verdict";

/** Most decisive first: the provider's answer, then the replays, the skip, the cancel, the note. */
const ORDER: ActionName[] = [
  "confirm-applied",
  "confirm-not-applied",
  "replay",
  "correct-and-replay",
  "skip-gap",
  "cancel",
  "note",
];

/**
 * The one filled button: the action that answers the record's required check, when it can help.
 * Never a note or a cancel (the danger button), and never a skip (it gives up on messages). A
 * replay leads only when the contract's verdict says it would apply; a correction leads when the
 * message as it stands breaks the contract (the check then asks for a correction). While the
 * verdict is not known yet, neither leads.
 */
export function primaryAction(actions: ActionName[], replay: Verdict | undefined): ActionName | null {
  return (
    actions.find((action) => {
      if (action === "note" || action === "cancel" || action === "skip-gap") return false;
      if (action === "replay") return replay !== undefined && replayCanApply(replay);
      if (action === "correct-and-replay") return replay === "invalid";
      return true;
    }) ?? null
  );
}

function buttonClass(action: ActionName, primary: ActionName | null): string {
  if (action === "cancel") return buttonClassName("danger");
  return buttonClassName(action === primary ? "primary" : "default");
}

/** Why the obvious next steps are missing, so a person does not hunt for a button that cannot exist. */
function notOffered(record: ReviewDetail, who: Authority): string | null {
  if (record.status === "resolved" || record.status === "cancelled") {
    return `This record is ${record.status}: only notes can be added.`;
  }
  if (record.status === "replay-scheduled") {
    // Run now, reschedule and unschedule are in the "Scheduled replay" box below; cancel is here.
    return permits(who, "reviews.resolve", record.domain)
      ? "A replay is scheduled: its outcome will resolve or reopen the record. Until a consumer claims it, run it now, reschedule or unschedule it below, or cancel the effect."
      : "A replay is scheduled: its outcome will resolve or reopen the record. An owner can run it now, reschedule, unschedule or cancel it.";
  }
  if (record.status === "replaying") return "A replay is running: wait for its outcome.";
  if (record.category === "effect-result-unknown") {
    return "Replay and correction are not offered until someone confirms the provider's side: a replay could create the effect twice.";
  }
  if (!permits(who, "reviews.resolve", record.domain)) {
    return "Replaying, correcting, skipping and cancelling need an owner; support can add notes.";
  }
  return null;
}

/** `who`: the person's grants (ADR 0030), read against the record's domain; `role` names them. */
export function ActionPanel({ record, role, who = role }: { record: ReviewDetail; role: Role; who?: Authority }) {
  const [openAction, setOpenAction] = useState<ActionName | null>(null);
  const [drafts, setDrafts] = useState<Partial<Record<ActionName, ActionDraft>>>({});
  // A report describes the record at the version the change left it at: once the record moves on
  // (unscheduled, replayed, someone else's action), it is stale and goes.
  const [notice, setNotice] = useState<{ text: string; version: number | null }>({ text: "", version: null });
  const announcement = notice.version === null || notice.version === record.version ? notice.text : "";
  const setAnnouncement = (text: string) => setNotice({ text, version: null });
  const [focusAfterClose, setFocusAfterClose] = useState<{ to: ActionName | "announcement"; n: number } | null>(null);
  const triggers = useRef(new Map<ActionName, HTMLButtonElement>());
  const announcementRef = useRef<HTMLParagraphElement>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);
  // A decision on this record waits for a second person: the server refuses any other until it
  // is answered (409 approval-pending), so only a note is offered meanwhile.
  const pendingApproval = useQuery(approvalsOptions("pending", record.id)).data?.approvals[0];
  const allowed = allowedActions(record, who).filter((action) => !pendingApproval || action === "note");
  const sendsAgain = allowed.includes("replay") || allowed.includes("correct-and-replay");
  // Before anyone opens a dialog: what the contract would say of this record's replay now.
  const replayVerdict = useReplayVerdict(record, sendsAgain ? { action: "replay" } : null);

  useEffect(() => {
    if (!focusAfterClose) return;
    const target =
      focusAfterClose.to === "announcement" ? announcementRef.current : triggers.current.get(focusAfterClose.to);
    (target ?? headingRef.current)?.focus();
  }, [focusAfterClose]);

  if (!permits(who, "reviews.act", record.domain)) {
    return (
      <section className={styles.readOnly} aria-labelledby="actions-title">
        <h2 id="actions-title" className={styles.sectionTitle}>
          Read-only
        </h2>
        <p>
          {typeof who !== "string" && canAnywhere(who, "reviews.act")
            ? `You act on records of other domains; on ${record.domain ? `domain ${record.domain}` : "records in no domain"} you read only.`
            : `Your role (${role}) reads every record and takes no action on it.`}
          {role === "admin" ? (
            <>
              {" "}
              Admins manage people and tokens, on the <Link href="/admin">admin page</Link>.
            </>
          ) : null}
        </p>
      </section>
    );
  }

  const actions = ORDER.filter((action) => allowed.includes(action));
  const why = pendingApproval
    ? `Approval pending: ${describeDecision(pendingApproval).toLowerCase()} waits for another person. Until it is approved, rejected or withdrawn, only notes can be added.`
    : notOffered(record, who);
  const primary = primaryAction(actions, replayVerdict.data?.verdict);
  const open = openAction ? drafts[openAction] : undefined;

  function start(action: ActionName) {
    setAnnouncement("");
    setDrafts((current) => (current[action] ? current : { ...current, [action]: newDraft(action, record) }));
    setOpenAction(action);
  }

  function close() {
    if (!openAction) return;
    setFocusAfterClose({ to: openAction, n: (focusAfterClose?.n ?? 0) + 1 });
    setOpenAction(null);
  }

  function done(action: ActionName, message: string, version: number) {
    setDrafts((current) => {
      const next = { ...current };
      delete next[action];
      return next;
    });
    setNotice({ text: message, version });
    setOpenAction(null);
    setFocusAfterClose({ to: "announcement", n: (focusAfterClose?.n ?? 0) + 1 });
  }

  return (
    <section className={styles.actionsPanel} aria-labelledby="actions-title">
      <h2 id="actions-title" ref={headingRef} tabIndex={-1} className={styles.sectionTitle}>
        Actions
      </h2>
      <div className={styles.actionRow}>
        <div className={styles.actionButtons}>
          {actions.map((action) => (
            <button
              key={action}
              type="button"
              ref={(node) => {
                if (node) triggers.current.set(action, node);
                else triggers.current.delete(action);
              }}
              className={buttonClass(action, primary)}
              aria-haspopup="dialog"
              onClick={() => start(action)}
            >
              {ACTION_RULES[action].label}
              {drafts[action] ? <span className={styles.draftMark}> (draft)</span> : null}
            </button>
          ))}
        </div>
        <StatusLine ref={announcementRef} className={styles.announcement}>
          {announcement}
        </StatusLine>
      </div>
      {sendsAgain ? <VerdictLine label="If replayed now" query={replayVerdict} /> : null}
      {why ? <p className={styles.hint}>{why}</p> : null}
      <ModalDialog
        open={Boolean(openAction && open)}
        title={openAction ? ACTION_RULES[openAction].label : ""}
        wide={openAction === "correct-and-replay"}
        onClose={close}
      >
        {openAction && open ? (
          <ActionForm
            key={openAction}
            record={record}
            role={who}
            draft={open}
            onChange={(draft) => setDrafts((current) => ({ ...current, [draft.action]: draft }))}
            onDone={(message, version) => done(openAction, message, version)}
          />
        ) : null}
      </ModalDialog>
    </section>
  );
}
