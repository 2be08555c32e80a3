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
import { ROLES } from "@/lib/access/client";
import { EXPIRY_DAYS } from "@/lib/tokens/client";
import type { TokenView } from "@/lib/tokens";
import styles from "./admin.module.css";
import { DomainField } from "./domain-field";
import { OneTimeSecret } from "./one-time-secret";
import { domainsOptions, tokensOptions } from "./queries";
import { useIssueToken, useRevokeToken } from "./use-admin-mutations";

type Dialog =
  { type: "create" } | { type: "revoke"; token: TokenView } | { type: "issued"; name: string; secret: string };

const STATE_BADGE = {
  active: <Badge tone="success">active</Badge>,
  expired: <Badge tone="warning">expired</Badge>,
  revoked: <Badge tone="danger">revoked</Badge>,
} as const;

/** A time in a column whose heading names the zone, or what its absence means. */
const when = (iso: string | null, none: string) =>
  iso ? <Time iso={iso} seconds={false} withZone={false} /> : <span className="rc-muted">{none}</span>;

/**
 * The API tokens programs use: create one (shown once), revoke one. Last use is to the minute;
 * an expired or revoked token is refused (401).
 */
export function TokensSection() {
  const query = useQuery(tokensOptions());
  const issue = useIssueToken();
  const revoke = useRevokeToken();
  const { dialog, status, statusRef, open, show, close, done } = useChangeDialog<Dialog>();
  const times = useTimes();
  const tokens = query.data?.tokens ?? [];
  const domainNames = (useQuery(domainsOptions()).data?.domains ?? []).map((d) => d.name);

  const title =
    dialog?.type === "create"
      ? "Create a token"
      : dialog?.type === "revoke"
        ? `Revoke the token ${dialog.token.name}`
        : dialog?.type === "issued"
          ? `Token ${dialog.name} created`
          : "";

  return (
    <Section
      title="API tokens"
      actions={
        <Button variant="primary" aria-haspopup="dialog" onClick={() => open({ type: "create" })}>
          Create a token…
        </Button>
      }
    >
      <p className={styles.lead}>
        Programs send a token as <code>Authorization: Bearer</code>. Only its hash is kept: it is shown once, when it is
        created. Revoking it pauses the bulk operations and automatic replays it started.
      </p>
      <QueryState
        query={query}
        loading="Loading tokens…"
        errorTitle="Tokens could not be loaded"
        isEmpty={tokens.length === 0}
        empty={<EmptyState title="No tokens yet" />}
      >
        <DataTable caption="API tokens, working ones first.">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Role</th>
              <th scope="col">Domain</th>
              <th scope="col">Prefix</th>
              <th scope="col">State</th>
              <th scope="col">Created by</th>
              <th scope="col">Created ({times.label})</th>
              <th scope="col">Last used ({times.label})</th>
              <th scope="col">Expires ({times.label})</th>
              <th scope="col">Changes</th>
            </tr>
          </thead>
          <tbody>
            {tokens.map((t) => (
              <tr key={t.id}>
                <td>{t.name}</td>
                <td>{t.role}</td>
                <td>{t.domain ?? <span className="rc-muted">every domain</span>}</td>
                <td className="rc-mono">{t.prefix}…</td>
                <td>{STATE_BADGE[t.state]}</td>
                <td>{t.createdBy ?? <span className="rc-muted">unknown</span>}</td>
                <td className="rc-mono rc-nowrap">{when(t.createdAt, "")}</td>
                <td className="rc-mono rc-nowrap">{when(t.lastUsedAt, "never")}</td>
                <td className="rc-mono rc-nowrap">{when(t.expiresAt, "never")}</td>
                <td>
                  {t.state === "revoked" ? (
                    <span className="rc-muted">by {t.revokedBy ?? "unknown"}</span>
                  ) : (
                    <Button
                      size="sm"
                      aria-haspopup="dialog"
                      aria-label={`Revoke the token ${t.name}`}
                      onClick={() => open({ type: "revoke", token: t })}
                    >
                      Revoke…
                    </Button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </DataTable>
      </QueryState>
      <StatusLine ref={statusRef}>{status}</StatusLine>
      <ModalDialog open={dialog !== null} title={title} onClose={close}>
        {dialog?.type === "issued" ? (
          <OneTimeSecret
            title="Copy the token now."
            label={`Token ${dialog.name}`}
            value={dialog.secret}
            note="It is shown only now: only its hash is kept, so it cannot be shown again. Lost, it can only be revoked and replaced."
            onDone={() => done(`Token ${dialog.name} created.`)}
          />
        ) : dialog?.type === "create" ? (
          <CreateTokenForm
            domains={domainNames}
            onSubmit={async (input) => {
              const issued = await issue.mutateAsync(input);
              show({ type: "issued", name: issued.token.name, secret: issued.secret });
            }}
          />
        ) : dialog?.type === "revoke" ? (
          <ReasonForm
            explanation={
              <p className={styles.lead}>
                Programs using {dialog.token.name} ({dialog.token.prefix}…) are refused from now on. This cannot be
                undone.
              </p>
            }
            submitLabel="Revoke"
            danger
            onSubmit={async (reason) => {
              await revoke.mutateAsync({ id: dialog.token.id, reason });
              done(`Token ${dialog.token.name} revoked.`);
            }}
          />
        ) : null}
      </ModalDialog>
    </Section>
  );
}

function CreateTokenForm({
  domains,
  onSubmit,
}: {
  domains: string[];
  onSubmit: (input: {
    name: string;
    role: string;
    expiresInDays: number | null;
    domain: string | null;
    reason: string;
  }) => Promise<void>;
}) {
  const id = useId();
  const [name, setName] = useState("");
  const [role, setRole] = useState<string>("consumer");
  const [expiry, setExpiry] = useState<string>("90");
  const [domain, setDomain] = useState<string>("");
  return (
    <ReasonForm
      fields={
        <>
          <Field
            label="Name"
            htmlFor={`${id}-name`}
            hint="What uses it, e.g. billing-worker; unique among working tokens."
          >
            <Input
              id={`${id}-name`}
              autoComplete="off"
              spellCheck={false}
              data-autofocus=""
              aria-describedby={`${id}-name-hint`}
              value={name}
              onChange={(event) => setName(event.target.value)}
            />
          </Field>
          <Field label="Role" htmlFor={`${id}-role`}>
            <Select id={`${id}-role`} value={role} onChange={(event) => setRole(event.target.value)}>
              {ROLES.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </Select>
          </Field>
          <DomainField
            id={`${id}-domain`}
            hint="A scoped token reports and claims only that domain's kinds."
            domains={domains}
            value={domain}
            onChange={setDomain}
          />
          <Field label="Expires" htmlFor={`${id}-expiry`}>
            <Select id={`${id}-expiry`} value={expiry} onChange={(event) => setExpiry(event.target.value)}>
              {EXPIRY_DAYS.map((days) => (
                <option key={days} value={String(days)}>
                  in {days} days
                </option>
              ))}
              <option value="never">never</option>
            </Select>
          </Field>
        </>
      }
      required={[{ id: `${id}-name`, filled: name.trim() !== "", message: "Name the token." }]}
      submitLabel="Create the token"
      onSubmit={(reason) =>
        onSubmit({
          name: name.trim(),
          role,
          expiresInDays: expiry === "never" ? null : Number(expiry),
          domain: domain || null,
          reason,
        })
      }
    />
  );
}
