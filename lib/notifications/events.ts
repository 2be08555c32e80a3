// The events webhooks carry (docs/decisions/0032-notifications.md), and how a decision-log entry
// becomes them. Pure: the notifier (./log-events.ts) looks up what an entry does not say itself
// (the record's cause and domain, an operation's domains) and passes it in as EntryFacts.

export const EVENT_TYPES = [
  "cause.new",
  "effect-result-unknown.reported",
  "open.above",
  "oldest-open.above",
  "operation.auto-paused",
  "operation.finished",
  "approval.requested",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** How a delivery is written: `standard` (Standard Webhooks, signed) or `slack` ({text, blocks}). */
export const WEBHOOK_FORMATS = ["standard", "slack"] as const;

/**
 * Sent only when an admin asks for it (POST /api/v1/webhooks/{id}/test), to that endpoint: no
 * endpoint subscribes to it, so it is not one of EVENT_TYPES.
 */
export const TEST_EVENT_TYPE = "webhook.test";
export const DELIVERY_EVENT_TYPES = [...EVENT_TYPES, TEST_EVENT_TYPE] as const;

export interface NotificationEvent {
  /** Stable: the same event always has the same key, so no endpoint gets it under two ids. */
  key: string;
  type: EventType;
  /** The domains it concerns; empty: none (only endpoints of every domain get it). */
  domains: string[];
  occurredAt: Date;
  data: Record<string, unknown>;
}

/** A decision-log entry as the notifier reads it. */
export interface LogEntry {
  seq: string;
  at: Date;
  actor: string;
  action: string;
  reviewId: string | null;
  effectKey: string | null;
  reason: string | null;
  details: unknown;
}

/** A record's cause: kind, reason and error class (null: none), as the grouped view names it. */
export interface Cause {
  kind: string | null;
  reason: string;
  errorClass: string | null;
}

export interface EntryFacts {
  /** The domain of the entry's record (domain_of_kind of its kind), if it has a record. */
  recordDomain?: string | null;
  /** Set when the entry's record shows a cause no record had before. */
  newCause?: Cause | null;
  /** The domains of an operation's records, for operation entries. */
  operationDomains?: string[];
}

/** The actions of the log that are events, or can be: what the notifier asks facts about. */
export const REPORT_ACTIONS = new Set(["review.reported", "review.reported-again"]);
export const OPERATION_ACTIONS = new Set(["operation.auto-paused", "operation.completed", "operation.aborted"]);
export const APPROVAL_REQUESTED = "approval.requested";

function detailsOf(entry: LogEntry): Record<string, unknown> {
  const d = entry.details;
  return d !== null && typeof d === "object" && !Array.isArray(d) ? (d as Record<string, unknown>) : {};
}

const text = (value: unknown): string | null => (typeof value === "string" ? value : null);

const domainList = (domain: string | null | undefined): string[] => (domain ? [domain] : []);

/** The events one log entry stands for (often none). */
export function eventsOfEntry(entry: LogEntry, facts: EntryFacts = {}): NotificationEvent[] {
  const details = detailsOf(entry);
  const base = (type: EventType, domains: string[], data: Record<string, unknown>): NotificationEvent => ({
    key: `log:${entry.seq}:${type}`,
    type,
    domains,
    occurredAt: entry.at,
    data: { seq: entry.seq, ...data },
  });
  const events: NotificationEvent[] = [];

  if (REPORT_ACTIONS.has(entry.action)) {
    const domains = domainList(facts.recordDomain);
    if (facts.newCause) {
      events.push(
        base("cause.new", domains, {
          reviewId: entry.reviewId,
          kind: facts.newCause.kind,
          reason: facts.newCause.reason,
          errorClass: facts.newCause.errorClass,
          category: text(details.category),
          domain: facts.recordDomain ?? null,
        }),
      );
    }
    // Only a record's first report: a report again of the same record is the same unknown.
    if (entry.action === "review.reported" && details.category === "effect-result-unknown") {
      events.push(
        base("effect-result-unknown.reported", domains, {
          reviewId: entry.reviewId,
          effectKey: entry.effectKey,
          kind: text(details.kind),
          reason: entry.reason,
          domain: facts.recordDomain ?? null,
        }),
      );
    }
    return events;
  }

  if (OPERATION_ACTIONS.has(entry.action)) {
    const domains = [...new Set(facts.operationDomains ?? [])].sort();
    const operationId = text(details.operationId);
    if (entry.action === "operation.auto-paused") {
      events.push(base("operation.auto-paused", domains, { operationId, reason: entry.reason, domains }));
    } else {
      const outcome = entry.action === "operation.completed" ? "completed" : "aborted";
      events.push(
        base("operation.finished", domains, {
          operationId,
          outcome,
          actor: entry.actor,
          reason: entry.reason,
          domains,
        }),
      );
    }
    return events;
  }

  if (entry.action === APPROVAL_REQUESTED) {
    // Approvals name one domain, or null with `domains` when the decision spans several.
    const domain = text(details.domain);
    const several = Array.isArray(details.domains) ? details.domains.filter((d) => typeof d === "string") : [];
    const domains = domain ? [domain] : [...new Set(several)].sort();
    events.push(
      base("approval.requested", domains, {
        approvalId: text(details.approvalId),
        domain,
        domains,
        decision: details.decision ?? null,
        requestedBy: text(details.requestedBy) ?? entry.actor,
        expiresAt: details.expiresAt ?? null,
        reason: entry.reason,
      }),
    );
  }
  return events;
}

/** Whether an endpoint of `domain` (null: every domain) that takes `types` gets the event. */
export function endpointWants(
  endpoint: { domain: string | null; events: readonly string[] },
  event: NotificationEvent,
) {
  if (!endpoint.events.includes(event.type)) return false;
  return endpoint.domain === null || event.domains.includes(endpoint.domain);
}

/** The Standard Webhooks body: {type, timestamp, data}. */
export function standardPayload(event: NotificationEvent): {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
} {
  return { type: event.type, timestamp: event.occurredAt.toISOString(), data: event.data };
}
