import { type Command, Option } from "commander";
import { CLI_ACTOR } from "@/lib/access";
import { config } from "@/lib/config";
import type { PasswordLink } from "@/lib/auth";
import type { PausedByChange } from "@/lib/operations";
import {
  createUser,
  newUserSchema,
  PERSON_ROLES,
  type PersonRole,
  disableUser,
  enableUser,
  listUsers,
  resetPassword,
  setUserRole,
} from "@/lib/users";
import type { WithDatabase } from "./audit-commands";
import { domainName, registerGrantCommands } from "./domain-commands";
import { readSecret } from "./read-secret";
import { printTable } from "./table";

// `review-console user …`: people who sign in (docs/decisions/0011-people-and-tokens.md). Every
// change is written to the decision log as `system:cli`, with --reason or a sentence saying none
// was given. A change refused (a Refusal: no such person, already disabled, ...) is printed by
// cli/main.ts as one `error: …` line with exit code 1, as any failure the user can fix.

export const NO_REASON = "(no reason given on the command line)";

const reasonOption = () => new Option("--reason <text>", "why, for the decision log");

/** Where the console is reached, for a password link: BETTER_AUTH_URL, else `npm start`'s address. */
export function consoleOrigin(): string {
  const { BETTER_AUTH_URL, HOST, PORT } = config();
  // BETTER_AUTH_URL is checked with the rest (cli/config-check.ts): an http(s) URL.
  if (BETTER_AUTH_URL) return new URL(BETTER_AUTH_URL).origin;
  return `http://${HOST}:${PORT}`;
}

export function pausedLines(paused: PausedByChange): string[] {
  return [
    ...paused.operations.map((id) => `paused operation ${id}: its authority lost the permission`),
    ...paused.kinds.map((kind) => `paused automatic replay of ${kind}: its authority lost the permission`),
  ];
}

function printLink(link: PasswordLink): void {
  console.log(`one-time link to set a password, valid until ${link.expiresAt.toISOString()}, shown only now:`);
  console.log(`${consoleOrigin()}${link.path}`);
}

export function registerPeopleCommands(
  program: Command,
  withDatabase: WithDatabase,
  fail: (message: string) => Error,
): void {
  const user = program.command("user").description("manage people who sign in");

  user
    .command("add")
    .description("add a user; the password comes from --password, REVIEW_PASSWORD or a prompt")
    .requiredOption("--email <email>", "sign-in email")
    .addOption(new Option("--role <role>", "what the user may do").choices(PERSON_ROLES).makeOptionMandatory())
    .option("--password <password>", "password (prefer the prompt or REVIEW_PASSWORD: options end up in shell history)")
    .option("--domain <name>", "the role in this domain only (default: every domain)")
    .action(async (options: { email: string; role: string; password?: string; domain?: string }) => {
      const domain = options.domain === undefined ? null : domainName(options.domain, fail);
      const password = options.password ?? config().REVIEW_PASSWORD ?? (await readSecret("Password: "));
      const parsed = newUserSchema.safeParse({ email: options.email, role: options.role, password });
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw fail(`${issue.path.join(".")}: ${issue.message}`);
      }
      await withDatabase(async () => {
        const result = await createUser(parsed.data, CLI_ACTOR.label, { domain });
        if (!result.ok) throw fail(`a user with email ${parsed.data.email} already exists`);
        console.log(
          `added ${parsed.data.email} as ${parsed.data.role}${domain === null ? "" : ` in domain ${domain}`}`,
        );
      });
    });

  user
    .command("list")
    .description("everyone who signs in: email, role, state (active, invited, disabled), open sessions")
    .action(async () => {
      await withDatabase(async () => {
        const people = await listUsers();
        printTable(
          ["email", "role", "state", "sessions", "added"],
          people.map((p) => [
            p.email,
            p.role,
            p.state === "disabled" && p.disabledReason ? `disabled: ${p.disabledReason}` : p.state,
            String(p.openSessions),
            p.createdAt,
          ]),
        );
      });
    });

  user
    .command("disable")
    .description("stop a person from signing in; their sessions end now, what ran on their authority pauses")
    .requiredOption("--email <email>", "whom")
    .addOption(reasonOption())
    .action(async (options: { email: string; reason?: string }) => {
      await withDatabase(async () => {
        const disabled = await disableUser({ email: options.email }, options.reason ?? NO_REASON, CLI_ACTOR);
        console.log(`disabled ${disabled.email}; ${disabled.sessionsEnded} session(s) ended`);
        for (const line of pausedLines(disabled.paused)) console.log(line);
      });
    });

  user
    .command("enable")
    .description("let a disabled person sign in again (what paused stays paused)")
    .requiredOption("--email <email>", "whom")
    .addOption(reasonOption())
    .action(async (options: { email: string; reason?: string }) => {
      await withDatabase(async () => {
        const enabled = await enableUser({ email: options.email }, options.reason ?? NO_REASON, CLI_ACTOR);
        console.log(`enabled ${enabled.email}`);
      });
    });

  user
    .command("set-role")
    .description("give a person another role; their sessions end now")
    .requiredOption("--email <email>", "whom")
    .addOption(new Option("--role <role>", "the new role").choices(PERSON_ROLES).makeOptionMandatory())
    .addOption(reasonOption())
    .action(async (options: { email: string; role: PersonRole; reason?: string }) => {
      await withDatabase(async () => {
        const changed = await setUserRole(
          { email: options.email },
          options.role,
          options.reason ?? NO_REASON,
          CLI_ACTOR,
        );
        console.log(
          `${changed.email} is now ${changed.to} (was ${changed.from}); ${changed.sessionsEnded} session(s) ended`,
        );
        for (const line of pausedLines(changed.paused)) console.log(line);
      });
    });

  registerGrantCommands(user, withDatabase, fail);

  user
    .command("reset-password")
    .description("the old password stops working and sessions end; prints a one-time link to set a new one")
    .requiredOption("--email <email>", "whose")
    .addOption(reasonOption())
    .action(async (options: { email: string; reason?: string }) => {
      await withDatabase(async () => {
        const reset = await resetPassword({ email: options.email }, options.reason ?? NO_REASON, CLI_ACTOR);
        console.log(`reset the password of ${reset.email}; ${reset.sessionsEnded} session(s) ended`);
        printLink(reset.link);
      });
    });
}
