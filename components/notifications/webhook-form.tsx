"use client";

import { useId, useState } from "react";
import { DomainField } from "@/components/admin/domain-field";
import { Choice, Field, Fieldset, Input, Select } from "@/components/ui/field";
import { ReasonForm } from "@/components/ui/reason-form";
import type { WebhookDefinition, WebhookView } from "@/lib/notifications";
import { EVENT_TYPES, WEBHOOK_FORMATS } from "@/lib/notifications/client";

/** A threshold's field: empty is none; what the server refuses it names (400 naming the field). */
const threshold = (text: string): number | null => (text.trim() === "" ? null : Number(text));

/**
 * Adding an endpoint, or changing one (`webhook` given: its definition is the starting point; a
 * change sends all of it, as PUT takes it). The server checks everything and names what it refuses.
 */
export function WebhookForm({
  webhook,
  domains,
  submitLabel,
  onSubmit,
}: {
  webhook?: WebhookView;
  domains: string[];
  submitLabel: string;
  onSubmit: (definition: WebhookDefinition) => Promise<void>;
}) {
  const id = useId();
  const [url, setUrl] = useState(webhook?.url ?? "");
  const [domain, setDomain] = useState(webhook?.domain ?? "");
  const [events, setEvents] = useState<string[]>(webhook?.events ?? [...EVENT_TYPES]);
  const [format, setFormat] = useState<string>(webhook?.format ?? "standard");
  const [openAbove, setOpenAbove] = useState(webhook?.openAbove?.toString() ?? "");
  const [oldestAbove, setOldestAbove] = useState(webhook?.oldestOpenAboveSeconds?.toString() ?? "");
  const toggle = (type: string, on: boolean) =>
    setEvents((now) => EVENT_TYPES.filter((t) => (t === type ? on : now.includes(t))));

  return (
    <ReasonForm
      fields={
        <>
          <Field label="URL" htmlFor={`${id}-url`} hint="Where deliveries are POSTed: a public http(s) address.">
            <Input
              id={`${id}-url`}
              type="url"
              autoComplete="off"
              spellCheck={false}
              data-autofocus=""
              aria-describedby={`${id}-url-hint`}
              value={url}
              onChange={(event) => setUrl(event.target.value)}
            />
          </Field>
          <DomainField
            id={`${id}-domain`}
            hint="Events of this domain only, or of every domain."
            domains={domains}
            value={domain}
            onChange={setDomain}
          />
          <Fieldset legend="Events">
            {EVENT_TYPES.map((type) => (
              <Choice
                key={type}
                type="checkbox"
                label={type}
                checked={events.includes(type)}
                onChange={(event) => toggle(type, event.target.checked)}
              />
            ))}
          </Fieldset>
          <Field
            label="Format"
            htmlFor={`${id}-format`}
            hint="standard: signed (Standard Webhooks); slack: a Slack message."
          >
            <Select
              id={`${id}-format`}
              aria-describedby={`${id}-format-hint`}
              value={format}
              onChange={(event) => setFormat(event.target.value)}
            >
              {WEBHOOK_FORMATS.map((f) => (
                <option key={f} value={f}>
                  {f}
                </option>
              ))}
            </Select>
          </Field>
          <Field label="Notify when more records are open than" htmlFor={`${id}-open`} hint="Empty: never.">
            <Input
              id={`${id}-open`}
              inputMode="numeric"
              aria-describedby={`${id}-open-hint`}
              value={openAbove}
              onChange={(event) => setOpenAbove(event.target.value)}
            />
          </Field>
          <Field
            label="Notify when the oldest open record is older than (seconds)"
            htmlFor={`${id}-oldest`}
            hint="Empty: never."
          >
            <Input
              id={`${id}-oldest`}
              inputMode="numeric"
              aria-describedby={`${id}-oldest-hint`}
              value={oldestAbove}
              onChange={(event) => setOldestAbove(event.target.value)}
            />
          </Field>
        </>
      }
      required={[{ id: `${id}-url`, filled: url.trim() !== "", message: "Give the endpoint's URL." }]}
      submitLabel={submitLabel}
      onSubmit={(reason) =>
        onSubmit({
          url: url.trim(),
          domain: domain || null,
          events: events as WebhookDefinition["events"],
          format: format as WebhookDefinition["format"],
          openAbove: threshold(openAbove),
          oldestOpenAboveSeconds: threshold(oldestAbove),
          reason,
        })
      }
    />
  );
}
