import { type Command, InvalidArgumentError, Option } from "commander";
import { CLI_ACTOR } from "@/lib/access";
import { ROLES, type Role } from "@/lib/access/client";
import { parseExpiresIn, issueToken, listTokens, revokeToken, tokenNameSchema } from "@/lib/tokens";
import type { WithDatabase } from "./audit-commands";
import { domainName } from "./domain-commands";
import { NO_REASON, pausedLines } from "./people-commands";
import { printTable } from "./table";

// `review-console token …`: API tokens for programs (docs/decisions/0011-people-and-tokens.md). A
// refused change (a Refusal: the name is taken, no such token) is printed by cli/main.ts as one
// `error: …` line with exit code 1.

function expiresIn(value: string): number {
  const seconds = parseExpiresIn(value);
  if (seconds === null) throw new InvalidArgumentError("must be <n>h, <n>d or <n>w (e.g. 12h, 30d, 2w), at most 3650d");
  return seconds;
}

function tokenName(value: string, fail: (message: string) => Error): string {
  const parsed = tokenNameSchema.safeParse(value);
  if (!parsed.success) throw fail(`name: ${parsed.error.issues[0]!.message}`);
  return parsed.data;
}

export function registerTokenCommands(
  program: Command,
  withDatabase: WithDatabase,
  fail: (message: string) => Error,
): void {
  const token = program.command("token").description("manage API tokens for programs");

  token
    .command("add")
    .description("issue a token; it is printed once, alone on the last line")
    .requiredOption("--name <name>", "what the token is for, e.g. billing-worker")
    .addOption(new Option("--role <role>", "what the token may do").choices(ROLES).makeOptionMandatory())
    .option("--expires-in <duration>", "when it stops working: 12h, 30d, 2w (default: never)", expiresIn)
    .option("--domain <name>", "report and claim only this domain's kinds (default: every domain)")
    .addOption(new Option("--reason <text>", "why, for the decision log"))
    .action(async (options: { name: string; role: Role; expiresIn?: number; reason?: string; domain?: string }) => {
      const name = tokenName(options.name, fail);
      const domain = options.domain === undefined ? null : domainName(options.domain, fail);
      await withDatabase(async () => {
        const issued = await issueToken(
          { name, role: options.role, expiresInSeconds: options.expiresIn ?? null, reason: options.reason, domain },
          CLI_ACTOR,
        );
        const until = issued.expiresAt ? `, expires ${issued.expiresAt.toISOString()}` : "";
        const scope = domain === null ? "" : ` in domain ${domain}`;
        console.log(`token ${name} (${options.role}${scope}${until}) issued; it is shown only now:`);
        console.log(issued.token);
      });
    });

  token
    .command("list")
    .description("every token: name, role, prefix, state, who issued it, last use (to the minute), expiry")
    .action(async () => {
      await withDatabase(async () => {
        const tokens = await listTokens();
        printTable(
          ["name", "role", "prefix", "state", "created by", "created", "last used", "expires"],
          tokens.map((t) => [
            t.name,
            t.role,
            t.prefix,
            t.state,
            t.createdBy ?? "-",
            t.createdAt,
            t.lastUsedAt ?? "never",
            t.expiresAt ?? "never",
          ]),
        );
      });
    });

  token
    .command("revoke")
    .description("the token is refused (401) from now on; what ran on its authority pauses")
    .requiredOption("--name <name>", "which token")
    .addOption(new Option("--reason <text>", "why, for the decision log"))
    .action(async (options: { name: string; reason?: string }) => {
      const name = tokenName(options.name, fail);
      await withDatabase(async () => {
        const { revoked, paused } = await revokeToken({ name }, options.reason ?? NO_REASON, CLI_ACTOR);
        for (const t of revoked) console.log(`revoked token ${t.name} (${t.prefix}…)`);
        for (const line of pausedLines(paused)) console.log(line);
      });
    });
}
