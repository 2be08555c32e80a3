// The Slack-compatible format ({text, blocks}) of an event, for an incoming-webhook URL. The
// values come from records and people (kinds, reasons, actors): Slack's mrkdwn would read `<`,
// `>` and `&` as links and mentions, so they are escaped as Slack documents.

const escape = (value: unknown): string =>
  String(value ?? "none")
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .slice(0, 500);

function summary(type: string, data: Record<string, unknown>): string {
  const where = data.domain ? ` in ${escape(data.domain)}` : "";
  switch (type) {
    case "cause.new":
      return `New cause${where}: ${escape(data.kind)} / ${escape(data.reason)} / ${escape(data.errorClass)}`;
    case "effect-result-unknown.reported":
      return `Effect result unknown${where}: ${escape(data.kind)} (effect ${escape(data.effectKey)})`;
    case "open.above":
      return `Open records${where}: ${escape(data.value)}, above ${escape(data.threshold)}`;
    case "oldest-open.above":
      return `Oldest open record${where}: ${escape(data.value)} s old, above ${escape(data.threshold)} s`;
    case "operation.auto-paused":
      return `Operation ${escape(data.operationId)} paused itself: ${escape(data.reason)}`;
    case "operation.finished":
      return `Operation ${escape(data.operationId)} ${escape(data.outcome)}`;
    case "approval.requested":
      return `Approval requested by ${escape(data.requestedBy)}${where}: ${escape((data.decision as { action?: unknown } | null)?.action)}`;
    case "webhook.test":
      return `Test event sent by ${escape(data.sentBy)}: this endpoint receives the console's notifications`;
    default:
      return escape(type);
  }
}

export function slackPayload(body: { type: string; timestamp: string; data: Record<string, unknown> }) {
  const text = `[Review Console] ${summary(body.type, body.data)}`;
  return {
    text,
    blocks: [
      { type: "section", text: { type: "mrkdwn", text } },
      { type: "context", elements: [{ type: "mrkdwn", text: `${escape(body.type)} at ${escape(body.timestamp)}` }] },
    ],
  };
}
