"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { type FormEvent, useId, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { Choice, Field, Input } from "@/components/ui/field";
import { ModalDialog } from "@/components/ui/modal-dialog";
import { type Problem, ProblemNotice } from "@/components/ui/notice";
import { StatusLine } from "@/components/ui/states";
import { useChangeDialog } from "@/components/ui/use-change-dialog";
import { ApiRequestError } from "@/lib/client/api";
import type { SavedView } from "@/lib/views";
import { MAX_VIEW_NAME } from "@/lib/views/client";
import { viewHref } from "./current-view";
import { savedViewsOptions, useChangeView, useDeleteView, useSaveView } from "./queries";
import styles from "./views.module.css";

type Dialog = { type: "save" } | { type: "manage" };

/**
 * The queue's "Save view…" (the URL's filters and sort under a name, for oneself or the team)
 * and "Manage views…" (share, unshare or delete one's own). The server checks and normalizes
 * what is saved (lib/views/saved-query.ts); the navigation's "Views" lists the result.
 */
export function SaveViewActions() {
  const { dialog, status, statusRef, open, close, done } = useChangeDialog<Dialog>();
  const views = useQuery(savedViewsOptions()).data?.views ?? [];
  const own = views.filter((v) => v.mine);
  return (
    <div className={styles.actions}>
      <StatusLine ref={statusRef}>{status}</StatusLine>
      <Button size="sm" aria-haspopup="dialog" onClick={() => open({ type: "save" })}>
        Save view…
      </Button>
      {own.length > 0 ? (
        <Button size="sm" variant="subtle" aria-haspopup="dialog" onClick={() => open({ type: "manage" })}>
          Manage views…
        </Button>
      ) : null}
      <ModalDialog
        open={dialog !== null}
        title={dialog?.type === "manage" ? "Your saved views" : "Save this view of the queue"}
        onClose={close}
      >
        {dialog?.type === "save" ? (
          <SaveViewForm onSaved={(view) => done(`View “${view.name}” saved${view.shared ? " and shared" : ""}.`)} />
        ) : dialog?.type === "manage" ? (
          <ManageViews views={own} onOpen={close} />
        ) : null}
      </ModalDialog>
    </div>
  );
}

/** The problem of a refused save, and the messages for the name field the server named. */
function problemOf(error: unknown): Problem {
  if (!(error instanceof ApiRequestError)) {
    return { title: "No answer from the server", text: "The view may not have been saved. Try again.", fields: {} };
  }
  const fields: Record<string, string[]> = {};
  for (const issue of error.issues) (fields[issue.path] ??= []).push(issue.message);
  const title = error.status === 409 ? "Not saved" : error.status === 400 ? "Check the form" : "The save failed";
  return { title, text: error.message, fields };
}

/** `status=open · kind=card.charge`: the parameters decoded (URLSearchParams never throws on a bad escape). */
function readable(query: string): string {
  return [...new URLSearchParams(query)].map(([key, value]) => `${key}=${value}`).join(" · ");
}

function SaveViewForm({ onSaved }: { onSaved: (view: SavedView) => void }) {
  const id = useId();
  const save = useSaveView();
  const [name, setName] = useState("");
  const [shared, setShared] = useState(false);
  const [problem, setProblem] = useState<Problem | null>(null);
  const problemRef = useRef<HTMLDivElement>(null);
  // What is saved: the queue's URL as it is now (filters, sort, the grouped view).
  const [query] = useState(() => window.location.search.replace(/^\?/, ""));
  const nameErrors = problem?.fields.name;

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (save.isPending) return;
    if (!name.trim()) {
      setProblem({ title: "Check the form", text: "", fields: { name: ["Give the view a name."] } });
      document.getElementById(`${id}-name`)?.focus();
      return;
    }
    setProblem(null);
    try {
      const { view } = await save.mutateAsync({ name: name.trim(), query, shared });
      onSaved(view);
    } catch (error) {
      const next = problemOf(error);
      setProblem(next);
      requestAnimationFrame(() =>
        (next.fields.name ? document.getElementById(`${id}-name`) : problemRef.current)?.focus(),
      );
    }
  }

  return (
    <form className={styles.form} onSubmit={submit} noValidate>
      <ProblemNotice problem={problem && !problem.fields.name ? problem : null} ref={problemRef} />
      <p className={styles.saved}>
        Saves the queue&apos;s filters and sort as they are now:{" "}
        {query ? <code>{readable(query)}</code> : "open records, newest first"}.
      </p>
      <Field
        label="Name"
        htmlFor={`${id}-name`}
        hint={`Up to ${MAX_VIEW_NAME} characters; it is what the navigation's Views list shows.`}
        errors={nameErrors}
      >
        {(control) => (
          <Input
            {...control}
            autoComplete="off"
            maxLength={MAX_VIEW_NAME}
            data-autofocus=""
            value={name}
            onChange={(event) => setName(event.target.value)}
          />
        )}
      </Field>
      <Choice
        type="checkbox"
        label="Share with the team (everyone sees it in their Views; only you can change it)"
        checked={shared}
        onChange={(event) => setShared(event.target.checked)}
      />
      <div>
        <Button type="submit" variant="primary" disabled={save.isPending}>
          Save view
        </Button>
      </div>
    </form>
  );
}

/** The person's own views, each shared or unshared, or deleted, in place; what was done is said in the dialog. */
function ManageViews({ views, onOpen }: { views: SavedView[]; onOpen: () => void }) {
  const change = useChangeView();
  const remove = useDeleteView();
  const [problem, setProblem] = useState<Problem | null>(null);
  const [report, setReport] = useState("");
  const busy = change.isPending || remove.isPending;

  async function run(action: () => Promise<unknown>, done: string) {
    setProblem(null);
    try {
      await action();
      setReport(done);
    } catch (error) {
      setProblem(problemOf(error));
    }
  }

  return (
    <div className={styles.form}>
      <ProblemNotice problem={problem} />
      <StatusLine>{report}</StatusLine>
      {views.length === 0 ? <p className={styles.saved}>You have no saved views left.</p> : null}
      <ul className={styles.manageList}>
        {views.map((view) => (
          <li key={view.id} className={styles.manageItem}>
            <span className={styles.manageName}>
              <Link href={viewHref(view)} onClick={onOpen}>
                {view.name}
              </Link>
              {view.shared ? <span className="rc-muted"> · shared</span> : null}
            </span>
            <Button
              size="sm"
              disabled={busy}
              aria-label={`${view.shared ? "Stop sharing" : "Share"} the view ${view.name}`}
              onClick={() =>
                run(
                  () => change.mutateAsync({ id: view.id, shared: !view.shared }),
                  `View “${view.name}” ${view.shared ? "no longer shared" : "shared with the team"}.`,
                )
              }
            >
              {view.shared ? "Stop sharing" : "Share"}
            </Button>
            <Button
              size="sm"
              variant="danger"
              disabled={busy}
              aria-label={`Delete the view ${view.name}`}
              onClick={() => run(() => remove.mutateAsync(view.id), `View “${view.name}” deleted.`)}
            >
              Delete
            </Button>
          </li>
        ))}
      </ul>
    </div>
  );
}
