"use client";

import { useQuery } from "@tanstack/react-query";
import { useId, useState } from "react";
import { Button } from "@/components/ui/button";
import { Field, Input } from "@/components/ui/field";
import { ModalDialog } from "@/components/ui/modal-dialog";
import { ReasonForm } from "@/components/ui/reason-form";
import { Section } from "@/components/ui/section";
import { EmptyState, QueryState, StatusLine } from "@/components/ui/states";
import { DataTable } from "@/components/ui/table";
import { useChangeDialog } from "@/components/ui/use-change-dialog";
import type { DomainView } from "@/lib/domains";
import { splitKinds } from "@/lib/domains/client";
import styles from "./admin.module.css";
import { domainsOptions } from "./queries";
import { useDomainChange } from "./use-admin-mutations";

type Dialog = { type: "create" } | { type: "edit" | "remove"; domain: DomainView };

function dialogTitle(dialog: Dialog): string {
  if (dialog.type === "create") return "Add a domain";
  return dialog.type === "edit" ? `Change the domain ${dialog.domain.name}` : `Remove the domain ${dialog.domain.name}`;
}

/**
 * Domains (docs/decisions/0029-domains.md): which kinds each groups, who holds a role in it and
 * which tokens are scoped to it; add one, change its kinds, remove one nobody holds.
 */
export function DomainsSection() {
  const query = useQuery(domainsOptions());
  const change = useDomainChange();
  const { dialog, status, statusRef, open, close, done } = useChangeDialog<Dialog>();
  const domains = query.data?.domains ?? [];

  return (
    <Section
      title="Domains"
      actions={
        <Button variant="primary" aria-haspopup="dialog" onClick={() => open({ type: "create" })}>
          Add a domain…
        </Button>
      }
    >
      <p className={styles.lead}>
        A domain groups message kinds: exact kinds (<code>card.charge</code>) or prefixes (<code>invoice.*</code>); the
        most specific pattern decides. Roles are granted in a domain on the people below. A record whose kind is in no
        domain is seen by global roles only.
      </p>
      <QueryState
        query={query}
        loading="Loading domains…"
        errorTitle="Domains could not be loaded"
        isEmpty={domains.length === 0}
        empty={<EmptyState title="No domains yet: every role holds everywhere" />}
      >
        <DataTable caption="Domains, by name.">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Kinds</th>
              <th scope="col">People</th>
              <th scope="col">Tokens</th>
              <th scope="col">Changes</th>
            </tr>
          </thead>
          <tbody>
            {domains.map((d) => (
              <tr key={d.name}>
                <td>
                  {d.name}
                  {d.description ? <div className="rc-muted">{d.description}</div> : null}
                </td>
                <td className="rc-mono">{d.kinds.join(", ")}</td>
                <td>
                  {d.grants.length ? (
                    d.grants.map((g) => `${g.email} (${g.role})`).join(", ")
                  ) : (
                    <span className="rc-muted">nobody</span>
                  )}
                </td>
                <td>
                  {d.tokens.length ? d.tokens.map((t) => t.name).join(", ") : <span className="rc-muted">none</span>}
                </td>
                <td>
                  <div className={styles.actions}>
                    <Button
                      size="sm"
                      aria-haspopup="dialog"
                      aria-label={`Change the domain ${d.name}`}
                      onClick={() => open({ type: "edit", domain: d })}
                    >
                      Kinds…
                    </Button>
                    <Button
                      size="sm"
                      aria-haspopup="dialog"
                      aria-label={`Remove the domain ${d.name}`}
                      onClick={() => open({ type: "remove", domain: d })}
                    >
                      Remove…
                    </Button>
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </DataTable>
      </QueryState>
      <StatusLine ref={statusRef}>{status}</StatusLine>
      <ModalDialog open={dialog !== null} title={dialog ? dialogTitle(dialog) : ""} onClose={close}>
        {dialog?.type === "remove" ? (
          <ReasonForm
            explanation={
              <p className={styles.lead}>
                Its kinds ({dialog.domain.kinds.join(", ")}) will be in no domain: global roles only. Refused while a
                person or a working token holds a role in it.
              </p>
            }
            submitLabel="Remove"
            danger
            onSubmit={async (reason) => {
              await change.mutateAsync({ kind: "remove", name: dialog.domain.name, reason });
              done(`Domain ${dialog.domain.name} removed.`);
            }}
          />
        ) : dialog ? (
          <DomainForm
            domain={dialog.type === "edit" ? dialog.domain : null}
            onSubmit={async (input) => {
              await change.mutateAsync({ kind: dialog.type === "edit" ? "update" : "create", ...input });
              done(dialog.type === "edit" ? `Domain ${input.name} changed.` : `Domain ${input.name} added.`);
            }}
          />
        ) : null}
      </ModalDialog>
    </Section>
  );
}

function DomainForm({
  domain,
  onSubmit,
}: {
  domain: DomainView | null;
  onSubmit: (input: { name: string; kinds: string[]; description: string | null; reason: string }) => Promise<void>;
}) {
  const id = useId();
  const [name, setName] = useState(domain?.name ?? "");
  const [kinds, setKinds] = useState(domain?.kinds.join(", ") ?? "");
  const [description, setDescription] = useState(domain?.description ?? "");
  return (
    <ReasonForm
      fields={
        <>
          {domain ? null : (
            <Field label="Name" htmlFor={`${id}-name`} hint="Lower-case letters, digits and -, e.g. payments.">
              <Input
                id={`${id}-name`}
                name="name"
                autoComplete="off"
                spellCheck={false}
                data-autofocus=""
                aria-describedby={`${id}-name-hint`}
                value={name}
                onChange={(event) => setName(event.target.value)}
              />
            </Field>
          )}
          <Field label="Kinds" htmlFor={`${id}-kinds`} hint="Comma-separated: card.charge, invoice.*">
            <Input
              id={`${id}-kinds`}
              name="kinds"
              autoComplete="off"
              spellCheck={false}
              {...(domain ? { "data-autofocus": "" } : {})}
              aria-describedby={`${id}-kinds-hint`}
              value={kinds}
              onChange={(event) => setKinds(event.target.value)}
            />
          </Field>
          <Field label="Description (optional)" htmlFor={`${id}-description`}>
            <Input
              id={`${id}-description`}
              name="description"
              autoComplete="off"
              value={description}
              onChange={(event) => setDescription(event.target.value)}
            />
          </Field>
        </>
      }
      required={[
        { id: `${id}-name`, filled: domain !== null || name.trim() !== "", message: "Name the domain." },
        { id: `${id}-kinds`, filled: splitKinds(kinds).length > 0, message: "Name at least one kind." },
      ]}
      submitLabel={domain ? "Save the kinds" : "Add the domain"}
      onSubmit={(reason) =>
        onSubmit({
          name: domain?.name ?? name.trim(),
          kinds: splitKinds(kinds),
          description: description.trim() || null,
          reason,
        })
      }
    />
  );
}
