"use client";

import { useQuery } from "@tanstack/react-query";
import { useId, useState } from "react";
import { APPROVAL_DECISIONS, type ApprovalDecision } from "@/lib/approvals/client";
import { ApiRequestError } from "@/lib/client/api";
import { Button } from "@/components/ui/button";
import { Field, Input, Select } from "@/components/ui/field";
import { Notice } from "@/components/ui/notice";
import { Section } from "@/components/ui/section";
import { EmptyState, QueryState } from "@/components/ui/states";
import styles from "./approvals.module.css";
import { policiesOptions, useRemovePolicy, useSetPolicy } from "./queries";

function hours(seconds: number): string {
  return seconds % 3600 === 0 ? `${seconds / 3600} h` : `${Math.round(seconds / 60)} min`;
}

/** Admins: which decisions need a second person, per domain (empty domain: the default). */
export function PoliciesSection() {
  const ids = { decision: useId(), domain: useId(), above: useId(), hours: useId(), reason: useId() };
  const query = useQuery(policiesOptions());
  const setPolicy = useSetPolicy();
  const removePolicy = useRemovePolicy();
  const [decision, setDecision] = useState<ApprovalDecision>("cancel");
  const [domain, setDomain] = useState("");
  const [above, setAbove] = useState("");
  const [expiryHours, setExpiryHours] = useState("24");
  const [reason, setReason] = useState("");
  const [message, setMessage] = useState<{ tone: "error" | "info"; text: string } | null>(null);
  const policies = query.data?.policies ?? [];

  const fail = (error: unknown) =>
    setMessage({
      tone: "error",
      text: error instanceof ApiRequestError ? error.message : "No answer from the server.",
    });

  function save() {
    if (!reason.trim()) return setMessage({ tone: "error", text: "Write why: it goes to the decision log." });
    const hoursNumber = Number(expiryHours);
    if (!Number.isFinite(hoursNumber) || hoursNumber <= 0)
      return setMessage({ tone: "error", text: "Expires after: a number of hours." });
    setPolicy.mutate(
      {
        decision,
        domain: domain.trim() || null,
        ...(decision === "operation" ? { minRecords: above.trim() === "" ? null : Number(above) } : {}),
        expiresAfterSeconds: Math.round(hoursNumber * 3600),
        reason: reason.trim(),
      },
      { onSuccess: () => setMessage({ tone: "info", text: "Policy saved." }), onError: fail },
    );
  }

  function remove(policy: { decision: ApprovalDecision; domain: string | null }) {
    if (!reason.trim())
      return setMessage({ tone: "error", text: "Write why in Reason first: it goes to the decision log." });
    removePolicy.mutate(
      { ...policy, reason: reason.trim() },
      { onSuccess: () => setMessage({ tone: "info", text: "Policy removed." }), onError: fail },
    );
  }

  return (
    <Section title="Approval policies" note="Which decisions wait for a second person, per domain">
      <QueryState
        query={query}
        loading="Loading the policies…"
        errorTitle="The policies could not be loaded"
        isEmpty={policies.length === 0}
        empty={<EmptyState title="No policies: every decision runs at once" />}
      >
        <ul className={styles.list}>
          {policies.map((p) => (
            <li key={`${p.domain ?? ""}|${p.decision}`} className={styles.card}>
              <p style={{ margin: 0 }}>
                <strong>{p.decision}</strong> in {p.domain ?? "every domain (default)"}
                {p.decision === "operation"
                  ? p.minRecords === null
                    ? ", always"
                    : `, above ${p.minRecords} records`
                  : ""}
                ; expires after {hours(p.expiresAfterSeconds)}
              </p>
              <p className={styles.meta}>Set by {p.updatedBy}</p>
              <div className={styles.buttons}>
                <Button size="sm" onClick={() => remove(p)}>
                  Remove
                </Button>
              </div>
            </li>
          ))}
        </ul>
      </QueryState>
      {message ? (
        <Notice tone={message.tone} role={message.tone === "error" ? "alert" : "status"}>
          <p>{message.text}</p>
        </Notice>
      ) : null}
      <div className={styles.policyForm}>
        <Field label="Decision" htmlFor={ids.decision}>
          <Select id={ids.decision} value={decision} onChange={(e) => setDecision(e.target.value as ApprovalDecision)}>
            {APPROVAL_DECISIONS.map((d) => (
              <option key={d} value={d}>
                {d}
              </option>
            ))}
          </Select>
        </Field>
        <Field label="Domain (empty: default)" htmlFor={ids.domain}>
          <Input id={ids.domain} value={domain} onChange={(e) => setDomain(e.target.value)} />
        </Field>
        {decision === "operation" ? (
          <Field label="Above N records (empty: always)" htmlFor={ids.above}>
            <Input id={ids.above} inputMode="numeric" value={above} onChange={(e) => setAbove(e.target.value)} />
          </Field>
        ) : null}
        <Field label="Expires after (hours)" htmlFor={ids.hours}>
          <Input
            id={ids.hours}
            inputMode="decimal"
            value={expiryHours}
            onChange={(e) => setExpiryHours(e.target.value)}
          />
        </Field>
        <Field label="Reason (required)" htmlFor={ids.reason}>
          <Input id={ids.reason} value={reason} onChange={(e) => setReason(e.target.value)} />
        </Field>
        <Button variant="primary" onClick={save} aria-disabled={setPolicy.isPending || undefined}>
          Save policy
        </Button>
      </div>
    </Section>
  );
}
