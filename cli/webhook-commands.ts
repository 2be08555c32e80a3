import { type Command, Option } from "commander";
import { CLI_ACTOR } from "@/lib/access";
import {
  webhookDefinitionSchema,
  webhookReasonSchema,
  WEBHOOK_FORMATS,
  addWebhook,
  listWebhooks,
  removeWebhook,
} from "@/lib/notifications";
import type { WithDatabase } from "./audit-commands";
import { printTable } from "./table";

// `review-console webhook …`: outgoing webhook endpoints (docs/decisions/0032-notifications.md).
// The input goes through the API's own schema, so the CLI refuses exactly what the API refuses.

function wholeNumber(flag: string, value: string | undefined, fail: (message: string) => Error): number | null {
  if (value === undefined) return null;
  if (!/^\d+$/.test(value)) throw fail(`${flag}: must be a whole number >= 1`);
  return Number(value);
}

export function registerWebhookCommands(
  program: Command,
  withDatabase: WithDatabase,
  fail: (message: string) => Error,
): void {
  const webhook = program.command("webhook").description("manage outgoing webhook endpoints (notifications)");

  webhook
    .command("add")
    .description("add an endpoint; its signing secret is printed once, alone on the last line")
    .requiredOption("--url <url>", "where to POST events (http:// or https://)")
    .option("--domain <name>", "only events of this domain (default: every domain)")
    .option("--events <e1,e2>", "event types, comma-separated (default: all)")
    .addOption(new Option("--format <format>", "payload format").choices(WEBHOOK_FORMATS).default("standard"))
    .option("--open-above <n>", "fire open.above when more than n records are open")
    .option("--oldest-above <seconds>", "fire oldest-open.above when the oldest open record is older")
    .requiredOption("--reason <text>", "why, for the decision log")
    .action(
      async (options: {
        url: string;
        domain?: string;
        events?: string;
        format: string;
        openAbove?: string;
        oldestAbove?: string;
        reason: string;
      }) => {
        const parsed = webhookDefinitionSchema.safeParse({
          url: options.url,
          domain: options.domain ?? null,
          ...(options.events !== undefined ? { events: options.events.split(",").map((e) => e.trim()) } : {}),
          format: options.format,
          openAbove: wholeNumber("open-above", options.openAbove, fail),
          oldestOpenAboveSeconds: wholeNumber("oldest-above", options.oldestAbove, fail),
          reason: options.reason,
        });
        if (!parsed.success) {
          const issue = parsed.error.issues[0]!;
          const flag = { oldestOpenAboveSeconds: "oldest-above", openAbove: "open-above" }[String(issue.path[0])];
          throw fail(`${flag ?? String(issue.path[0] ?? "input")}: ${issue.message}`);
        }
        await withDatabase(async () => {
          const { webhook: added, secret } = await addWebhook(parsed.data, CLI_ACTOR);
          console.log(
            `webhook ${added.id} added (${added.domain ?? "every domain"}, ${added.format}: ${added.events.join(",")}); its secret is shown only now:`,
          );
          console.log(secret);
        });
      },
    );

  webhook
    .command("list")
    .description("every endpoint: id, URL, domain, format, events, deliveries")
    .action(async () => {
      await withDatabase(async () => {
        const webhooks = await listWebhooks();
        printTable(
          ["id", "url", "domain", "format", "events", "delivered", "pending", "failed"],
          webhooks.map((w) => [
            w.id,
            w.url,
            w.domain ?? "(every)",
            w.format,
            w.events.join(","),
            String(w.deliveries.delivered),
            String(w.deliveries.pending),
            String(w.deliveries.failed),
          ]),
        );
      });
    });

  webhook
    .command("remove")
    .description("remove an endpoint and its deliveries")
    .argument("<id>", "the endpoint's id (from `webhook list`)")
    .requiredOption("--reason <text>", "why, for the decision log")
    .action(async (id: string, options: { reason: string }) => {
      const parsed = webhookReasonSchema.safeParse({ reason: options.reason });
      if (!parsed.success) throw fail(`reason: ${parsed.error.issues[0]!.message}`);
      await withDatabase(async () => {
        const removed = await removeWebhook(id, parsed.data.reason, CLI_ACTOR);
        console.log(`webhook ${removed.id} (${removed.url}) removed`);
      });
    });
}
