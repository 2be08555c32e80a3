"use client";

import { useQuery } from "@tanstack/react-query";
import { useId, useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Field, Input, Select } from "@/components/ui/field";
import { ModalDialog } from "@/components/ui/modal-dialog";
import { ReasonForm } from "@/components/ui/reason-form";
import { Section } from "@/components/ui/section";
import { EmptyState, QueryState, StatusLine } from "@/components/ui/states";
import { DataTable } from "@/components/ui/table";
import { Time, useTimes } from "@/components/ui/time-zone";
import { useChangeDialog } from "@/components/ui/use-change-dialog";
import { PERSON_ROLES } from "@/lib/access/client";
import { grantLabel } from "@/lib/domains/client";
import type { PersonView } from "@/lib/users";
import styles from "./admin.module.css";
import { OneTimeSecret } from "./one-time-secret";
import { domainsOptions, peopleOptions } from "./queries";
import { type PersonAnswer, useGrantChange, usePersonChange } from "./use-admin-mutations";

type Dialog =
  | { type: "invite" }
  | { type: "role" | "disable" | "enable" | "password-link" | "grant" | "revoke"; person: PersonView }
  | { type: "link"; title: string; url: string; expiresAt: string };

const STATE_BADGE = {
  active: <Badge tone="success">active</Badge>,
  invited: <Badge tone="info">no password yet</Badge>,
  disabled: <Badge tone="danger">disabled</Badge>,
} as const;

function dialogTitle(dialog: Dialog): string {
  switch (dialog.type) {
    case "invite":
      return "Invite a person";
    case "role":
      return `Change the role of ${dialog.person.email}`;
    case "disable":
      return `Disable ${dialog.person.email}`;
    case "enable":
      return `Enable ${dialog.person.email}`;
    case "password-link":
      return `New password link for ${dialog.person.email}`;
    case "grant":
      return `Grant ${dialog.person.email} a role`;
    case "revoke":
      return `Take a grant from ${dialog.person.email}`;
    case "link":
      return dialog.title;
  }
}

/** What the list says after a change, for the status line under it. */
function announce(dialog: Dialog, answer: PersonAnswer): string {
  const { person } = answer;
  const ended = answer.sessionsEnded ? ` ${answer.sessionsEnded} open session(s) ended.` : "";
  const paused = answer.paused ? answer.paused.operations.length + answer.paused.kinds.length : 0;
  const pausedText = paused ? ` ${paused} operation(s) or automatic replay(s) on their authority paused.` : "";
  switch (dialog.type) {
    case "role":
      return `${person.email} is now ${person.role}.${ended}${pausedText}`;
    case "disable":
      return `${person.email} is disabled.${ended}${pausedText}`;
    case "enable":
      return `${person.email} may sign in again.`;
    default:
      return "";
  }
}

/**
 * Everyone who signs in, and the admin's changes to them: invite (with a one-time link to set a
 * password), change role, disable or enable, new password link. Each takes a reason.
 */
export function PeopleSection({ viewerId }: { viewerId: string }) {
  const query = useQuery(peopleOptions());
  const change = usePersonChange();
  const grantChange = useGrantChange();
  const domainNames = (useQuery(domainsOptions()).data?.domains ?? []).map((d) => d.name);
  const { dialog, status, statusRef, open, show, close, done } = useChangeDialog<Dialog>();
  const times = useTimes();
  const people = query.data?.people ?? [];

  return (
    <Section
      title="People"
      actions={
        <Button variant="primary" aria-haspopup="dialog" onClick={() => open({ type: "invite" })}>
          Invite a person…
        </Button>
      }
    >
      <p className={styles.lead}>
        Disabling someone or changing their role ends their open sessions at once. A grant (a role in one domain, or
        everywhere) works from their next request. Bulk operations and automatic replays running on their authority
        pause when they may no longer start them.
      </p>
      <QueryState
        query={query}
        loading="Loading people…"
        errorTitle="People could not be loaded"
        isEmpty={people.length === 0}
        empty={<EmptyState title="Nobody signs in yet" />}
      >
        <DataTable caption="People who sign in, by email.">
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Grants</th>
              <th scope="col">State</th>
              <th scope="col" className="rc-num">
                Open sessions
              </th>
              <th scope="col">Added ({times.label})</th>
              <th scope="col">Changes</th>
            </tr>
          </thead>
          <tbody>
            {people.map((p) => (
              <tr key={p.id}>
                {/* Cells may break anywhere (long ids); an address is read whole, the frame scrolls instead. */}
                <td className="rc-nowrap">{p.email}</td>
                <td>{p.role}</td>
                <td>
                  {p.grants.length ? (
                    <ul className={styles.grants} aria-label={`Grants of ${p.email}`}>
                      {p.grants.map((g) => (
                        <li key={`${g.role}:${g.domain ?? ""}:${g.source}`}>
                          {grantLabel(g)}
                          {g.source === "oidc" ? <span className="rc-muted"> (single sign-on)</span> : null}
                        </li>
                      ))}
                    </ul>
                  ) : (
                    <span className="rc-muted">none: may do nothing</span>
                  )}
                </td>
                <td>
                  {STATE_BADGE[p.state]}
                  {p.disabledReason ? <div className="rc-muted">{p.disabledReason}</div> : null}
                </td>
                <td className="rc-num">{p.openSessions}</td>
                <td className="rc-mono rc-nowrap">
                  <Time iso={p.createdAt} seconds={false} withZone={false} />
                </td>
                <td>
                  {p.id === viewerId ? (
                    <span className="rc-muted">you</span>
                  ) : (
                    <div className={styles.actions}>
                      <Button
                        size="sm"
                        aria-haspopup="dialog"
                        aria-label={`Change the role of ${p.email}`}
                        onClick={() => open({ type: "role", person: p })}
                      >
                        Role…
                      </Button>
                      <Button
                        size="sm"
                        aria-haspopup="dialog"
                        aria-label={`Grant ${p.email} a role`}
                        onClick={() => open({ type: "grant", person: p })}
                      >
                        Grant…
                      </Button>
                      {p.grants.some((g) => g.source === "manual") ? (
                        <Button
                          size="sm"
                          aria-haspopup="dialog"
                          aria-label={`Take a grant from ${p.email}`}
                          onClick={() => open({ type: "revoke", person: p })}
                        >
                          Revoke grant…
                        </Button>
                      ) : null}
                      {p.state === "disabled" ? (
                        <Button
                          size="sm"
                          aria-haspopup="dialog"
                          aria-label={`Enable ${p.email}`}
                          onClick={() => open({ type: "enable", person: p })}
                        >
                          Enable…
                        </Button>
                      ) : (
                        <>
                          <Button
                            size="sm"
                            aria-haspopup="dialog"
                            aria-label={`Disable ${p.email}`}
                            onClick={() => open({ type: "disable", person: p })}
                          >
                            Disable…
                          </Button>
                          <Button
                            size="sm"
                            aria-haspopup="dialog"
                            aria-label={`New password link for ${p.email}`}
                            onClick={() => open({ type: "password-link", person: p })}
                          >
                            Password link…
                          </Button>
                        </>
                      )}
                    </div>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </DataTable>
      </QueryState>
      <StatusLine ref={statusRef}>{status}</StatusLine>
      <ModalDialog open={dialog !== null} title={dialog ? dialogTitle(dialog) : ""} onClose={close}>
        {dialog?.type === "link" ? (
          <OneTimeSecret
            title={`Link made; it works once, until ${times.format(dialog.expiresAt, { seconds: false })}.`}
            label="Link to set a password"
            value={dialog.url}
            note="Hand it to the person yourself. It is shown only now and cannot be shown again; a new link replaces it."
            onDone={() => done("")}
          />
        ) : dialog?.type === "invite" ? (
          <InviteForm
            onSubmit={async (input) => {
              const answer = await change.mutateAsync({ kind: "invite", ...input });
              show({ type: "link", title: `${answer.person.email} is invited`, ...answer.link! });
            }}
          />
        ) : dialog?.type === "role" ? (
          <RoleForm
            person={dialog.person}
            onSubmit={async (role, reason) => {
              const answer = await change.mutateAsync({ kind: "role", userId: dialog.person.id, role, reason });
              done(announce(dialog, answer));
            }}
          />
        ) : dialog?.type === "grant" || dialog?.type === "revoke" ? (
          <GrantForm
            person={dialog.person}
            mode={dialog.type}
            domains={domainNames}
            onSubmit={async (grant, reason) => {
              const answer = await grantChange.mutateAsync({
                kind: dialog.type === "grant" ? "grant" : "revoke",
                userId: dialog.person.id,
                ...grant,
                reason,
              });
              const verb = dialog.type === "grant" ? "now holds" : "no longer holds";
              done(`${answer.person.email} ${verb} ${grantLabel(grant)}.`);
            }}
          />
        ) : dialog && isReasonOnly(dialog) ? (
          <ReasonForm
            explanation={<p className={styles.lead}>{EXPLANATIONS[dialog.type]}</p>}
            submitLabel={SUBMIT_LABELS[dialog.type]}
            danger={dialog.type === "disable"}
            onSubmit={async (reason) => {
              const answer = await change.mutateAsync({ kind: dialog.type, userId: dialog.person.id, reason });
              if (dialog.type === "password-link") {
                show({ type: "link", title: `New password link for ${answer.person.email}`, ...answer.link! });
              } else {
                done(announce(dialog, answer));
              }
            }}
          />
        ) : null}
      </ModalDialog>
    </Section>
  );
}

type ReasonOnly = { type: "disable" | "enable" | "password-link"; person: PersonView };

/** The changes that need nothing but a reason. */
function isReasonOnly(dialog: Dialog): dialog is ReasonOnly {
  return dialog.type === "disable" || dialog.type === "enable" || dialog.type === "password-link";
}

const EXPLANATIONS = {
  disable:
    "They can no longer sign in, and their open sessions end now. Operations and automatic replays running on their authority pause.",
  enable: "They may sign in again with their password. What paused when they were disabled stays paused.",
  "password-link":
    "Their current password stops working and their sessions end. You get a one-time link for them to set a new one.",
} as const;

const SUBMIT_LABELS = { disable: "Disable", enable: "Enable", "password-link": "Reset and make a link" } as const;

function InviteForm({
  onSubmit,
}: {
  onSubmit: (input: { email: string; role: string; reason: string }) => Promise<void>;
}) {
  const id = useId();
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<string>("owner");
  return (
    <ReasonForm
      explanation={
        <p className={styles.lead}>They get no password from you: you get a one-time link for them to set their own.</p>
      }
      fields={
        <>
          <Field label="Email" htmlFor={`${id}-email`}>
            <Input
              id={`${id}-email`}
              type="email"
              autoComplete="off"
              spellCheck={false}
              data-autofocus=""
              value={email}
              onChange={(event) => setEmail(event.target.value)}
            />
          </Field>
          <Field label="Role" htmlFor={`${id}-role`}>
            <Select id={`${id}-role`} value={role} onChange={(event) => setRole(event.target.value)}>
              {PERSON_ROLES.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </Select>
          </Field>
        </>
      }
      required={[{ id: `${id}-email`, filled: email.trim() !== "", message: "Enter the person's email." }]}
      submitLabel="Invite"
      onSubmit={(reason) => onSubmit({ email: email.trim(), role, reason })}
    />
  );
}

function RoleForm({
  person,
  onSubmit,
}: {
  person: PersonView;
  onSubmit: (role: string, reason: string) => Promise<void>;
}) {
  const id = useId();
  const choices = PERSON_ROLES.filter((r) => r !== person.role);
  const [role, setRole] = useState<string>(choices[0]!);
  return (
    <ReasonForm
      explanation={
        <p className={styles.lead}>
          {person.email} is {person.role} now. Their open sessions end: they sign in again with the new role.
        </p>
      }
      fields={
        <Field label="New role" htmlFor={`${id}-role`}>
          <Select id={`${id}-role`} data-autofocus="" value={role} onChange={(event) => setRole(event.target.value)}>
            {choices.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </Select>
        </Field>
      }
      submitLabel="Change the role"
      onSubmit={(reason) => onSubmit(role, reason)}
    />
  );
}

/** `role|domain`: one option of the grant form's select (an empty domain: every domain). */
const grantKey = (g: { role: string; domain: string | null }) => `${g.role}|${g.domain ?? ""}`;

function GrantForm({
  person,
  mode,
  domains,
  onSubmit,
}: {
  person: PersonView;
  mode: "grant" | "revoke";
  domains: string[];
  onSubmit: (grant: { role: PersonView["role"]; domain: string | null }, reason: string) => Promise<void>;
}) {
  const id = useId();
  const [role, setRole] = useState<PersonView["role"]>("owner");
  const [domain, setDomain] = useState<string>(domains[0] ?? "");
  const held = person.grants.filter((g) => g.source === "manual");
  const [revoked, setRevoked] = useState<string>(held[0] ? grantKey(held[0]) : "");
  if (mode === "revoke") {
    return (
      <ReasonForm
        explanation={
          <p className={styles.lead}>
            It stops working at their next request. Taking the last one leaves {person.email} able to do nothing.
          </p>
        }
        fields={
          <Field label="Grant" htmlFor={`${id}-grant`}>
            <Select
              id={`${id}-grant`}
              data-autofocus=""
              value={revoked}
              onChange={(event) => setRevoked(event.target.value)}
            >
              {held.map((g) => (
                <option key={grantKey(g)} value={grantKey(g)}>
                  {grantLabel(g)}
                </option>
              ))}
            </Select>
          </Field>
        }
        submitLabel="Take the grant away"
        danger
        onSubmit={(reason) => {
          const [r, d] = revoked.split("|");
          return onSubmit({ role: r as PersonView["role"], domain: d || null }, reason);
        }}
      />
    );
  }
  return (
    <ReasonForm
      explanation={<p className={styles.lead}>It works from their next request; their sessions do not end.</p>}
      fields={
        <>
          <Field label="Role" htmlFor={`${id}-role`}>
            <Select
              id={`${id}-role`}
              data-autofocus=""
              value={role}
              onChange={(event) => setRole(event.target.value as PersonView["role"])}
            >
              {PERSON_ROLES.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </Select>
          </Field>
          <Field label="Where" htmlFor={`${id}-domain`}>
            <Select id={`${id}-domain`} value={domain} onChange={(event) => setDomain(event.target.value)}>
              {domains.map((d) => (
                <option key={d} value={d}>
                  in domain {d}
                </option>
              ))}
              <option value="">in every domain</option>
            </Select>
          </Field>
        </>
      }
      submitLabel="Grant"
      onSubmit={(reason) => onSubmit({ role, domain: domain || null }, reason)}
    />
  );
}
