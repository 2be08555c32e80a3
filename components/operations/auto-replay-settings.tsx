"use client";

import { useQuery } from "@tanstack/react-query";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { ModalDialog } from "@/components/ui/modal-dialog";
import { ReasonForm } from "@/components/ui/reason-form";
import { Section } from "@/components/ui/section";
import { EmptyState, QueryState, StatusLine } from "@/components/ui/states";
import { DataTable } from "@/components/ui/table";
import { Time, ZonedHeading } from "@/components/ui/time-zone";
import { useChangeDialog } from "@/components/ui/use-change-dialog";
import { type Role, type Grant, holdsPermission } from "@/lib/access/client";
import type { KindAutoReplay } from "@/lib/operations/client";
import { formatCount } from "./model";
import styles from "./operations.module.css";
import { problemOf } from "./problem";
import { autoReplayOptions } from "./queries";
import { useSetAutoReplay } from "./use-operation-mutations";

/**
 * Per kind: whether held sequence-gap records whose predecessor has since been applied ("ready")
 * replay by themselves. Owners switch it, with a reason; everyone else reads it.
 */
export function AutoReplaySettings({ role, grants }: { role: Role; grants?: readonly Grant[] }) {
  const query = useQuery({ ...autoReplayOptions(), refetchInterval: 10_000 });
  const mutation = useSetAutoReplay();
  const { dialog: editing, status, statusRef, open, close, done } = useChangeDialog<KindAutoReplay>();
  // The list holds the kinds of the person's domains only (ADR 0030); the API checks each switch.
  const mayChange = holdsPermission(grants ?? role, "reviews.resolve");
  const kinds = query.data?.kinds ?? [];
  // A switch paused for lost authority is on but idle: turning it on again puts it on yours.
  const turningOn = editing ? !editing.autoReplayReady || editing.pausedReason !== null : false;

  return (
    <Section title="Automatic replay of ready records">
      <p className={styles.lead}>
        A held sequence-gap record is <strong>ready</strong> once its missing predecessors have been applied. When a
        kind replays ready records automatically, the console schedules each one&apos;s replay by itself (actor{" "}
        <code className="rc-mono">system:auto-replay</code>, naming the person who turned it on).
      </p>
      <QueryState
        query={query}
        loading="Loading the kinds…"
        errorTitle="The settings could not be loaded"
        isEmpty={kinds.length === 0}
        empty={<EmptyState title="No kinds known yet" />}
      >
        <DataTable caption="Automatic replay of ready records, by kind.">
          <thead>
            <tr>
              <th scope="col">Kind</th>
              <th scope="col">Automatic replay</th>
              <th scope="col" className="rc-num">
                Ready records
              </th>
              <th scope="col">Changed by</th>
              <th scope="col">
                <ZonedHeading>Changed</ZonedHeading>
              </th>
              {mayChange ? (
                <th scope="col">
                  <span className="rc-visually-hidden">Change</span>
                </th>
              ) : null}
            </tr>
          </thead>
          <tbody>
            {kinds.map((k) => (
              <tr key={k.kind}>
                <td className="rc-mono">{k.kind}</td>
                <td>
                  {!k.autoReplayReady ? (
                    <Badge>off</Badge>
                  ) : k.pausedReason ? (
                    <>
                      <Badge tone="warning">paused</Badge>
                      <div className="rc-muted">{k.pausedReason}</div>
                    </>
                  ) : (
                    <Badge tone="success">on</Badge>
                  )}
                </td>
                <td className="rc-num">{formatCount(k.ready)}</td>
                <td>{k.updatedBy ?? <span className="rc-muted">—</span>}</td>
                <td className="rc-mono rc-nowrap">
                  {k.updatedAt ? <Time iso={k.updatedAt} seconds={false} withZone={false} /> : "—"}
                </td>
                {mayChange ? (
                  <td>
                    <Button
                      size="sm"
                      aria-haspopup="dialog"
                      aria-label={`${switchLabel(k)} automatic replay for ${k.kind}`}
                      onClick={() => open(k)}
                    >
                      {switchLabel(k)}…
                    </Button>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </DataTable>
      </QueryState>
      <StatusLine ref={statusRef}>{status}</StatusLine>
      <ModalDialog
        open={editing !== null}
        title={editing ? `${turningOn ? "Turn on" : "Turn off"} automatic replay: ${editing.kind}` : ""}
        onClose={close}
      >
        {editing ? (
          <ReasonForm
            key={editing.kind}
            explanation={
              <p className={styles.lead}>
                {turningOn
                  ? `Ready records of ${editing.kind} (${formatCount(editing.ready)} now) will be replayed by the console, one by one, as the single-record replay does.`
                  : `Ready records of ${editing.kind} will wait for a person again.`}
              </p>
            }
            submitLabel={turningOn ? "Turn on" : "Turn off"}
            describeProblem={problemOf}
            onSubmit={(reason) =>
              mutation
                .mutateAsync({ kind: editing.kind, enabled: turningOn, reason })
                .then(() => done(`Automatic replay for ${editing.kind} is ${turningOn ? "on" : "off"}.`))
            }
          />
        ) : null}
      </ModalDialog>
    </Section>
  );
}

/** What the switch's button does: a paused switch is turned on again (on the viewer's authority). */
function switchLabel(k: KindAutoReplay): string {
  if (!k.autoReplayReady) return "Turn on";
  return k.pausedReason ? "Turn on again" : "Turn off";
}
