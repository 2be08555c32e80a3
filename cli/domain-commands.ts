import { type Command, Option } from "commander";
import type { z } from "zod";
import { CLI_ACTOR } from "@/lib/access";
import { PERSON_ROLES, type PersonRole } from "@/lib/access/client";
import {
  createDomain,
  listDomains,
  removeDomain,
  updateDomain,
  descriptionSchema,
  domainNameSchema,
  kindPatternsSchema,
  splitKinds,
} from "@/lib/domains";
import { grantRole, revokeRole } from "@/lib/users";
import type { WithDatabase } from "./audit-commands";
import { NO_REASON, pausedLines } from "./people-commands";
import { printTable } from "./table";

// `review-console domain …` and `user grant|revoke` (docs/decisions/0029-domains.md). Bad input is
// refused before the database is opened; a refused change (a Refusal: the pattern belongs to
// another domain, the domain is still granted, ...) is printed by cli/main.ts as one `error: …`
// line with exit code 1. Every change goes to the decision log as `system:cli`.

type Fail = (message: string) => Error;

function parseWith<T>(schema: z.ZodType<T>, value: unknown, field: string, fail: Fail): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const at = issue.path.length > 0 ? `${field}.${issue.path.join(".")}` : field;
  // `--kinds.1` says which kind of the list, counting from 0 as the API does.
  throw fail(
    `${at}: ${issue.message}${issue.path.length > 0 ? ` (${String((value as unknown[])[issue.path[0] as number])})` : ""}`,
  );
}

export function domainName(value: string, fail: Fail): string {
  return parseWith(domainNameSchema, value, "--name", fail);
}

function kinds(value: string, fail: Fail): string[] {
  return parseWith(kindPatternsSchema, splitKinds(value), "--kinds", fail);
}

export function registerDomainCommands(program: Command, withDatabase: WithDatabase, fail: Fail): void {
  const domain = program.command("domain").description("domains: groups of message kinds that roles are granted in");
  const reasonOption = () => new Option("--reason <text>", "why, for the decision log");

  domain
    .command("add")
    .description("add a domain owning kinds: exact (card.charge) or prefixes (invoice.*)")
    .argument("<name>", "lower-case name, e.g. payments")
    .requiredOption("--kinds <k1,k2>", "comma-separated kinds or prefixes")
    .option("--description <text>", "what the domain is, for people")
    .addOption(reasonOption())
    .action(async (nameArg: string, options: { kinds: string; description?: string; reason?: string }) => {
      const name = domainName(nameArg, fail);
      const patterns = kinds(options.kinds, fail);
      const description = parseWith(descriptionSchema, options.description ?? null, "--description", fail);
      await withDatabase(async () => {
        await createDomain({ name, kinds: patterns, description }, options.reason ?? NO_REASON, CLI_ACTOR);
        console.log(`added domain ${name}: ${[...patterns].sort().join(", ")}`);
      });
    });

  domain
    .command("list")
    .description("every domain: its kinds and who holds a role in it (people and working tokens)")
    .action(async () => {
      await withDatabase(async () => {
        const domains = await listDomains();
        printTable(
          ["name", "kinds", "people", "tokens", "description"],
          domains.map((d) => [
            d.name,
            d.kinds.join(","),
            d.grants.map((g) => `${g.email} (${g.role})`).join(", ") || "-",
            d.tokens.map((t) => `${t.name} (${t.role})`).join(", ") || "-",
            d.description ?? "",
          ]),
        );
      });
    });

  domain
    .command("set-kinds")
    .description("replace a domain's kinds; records move with their kinds at once")
    .argument("<name>", "which domain")
    .requiredOption("--kinds <k1,k2>", "comma-separated kinds or prefixes")
    .addOption(reasonOption())
    .action(async (nameArg: string, options: { kinds: string; reason?: string }) => {
      const name = domainName(nameArg, fail);
      const patterns = kinds(options.kinds, fail);
      await withDatabase(async () => {
        const changed = await updateDomain(name, { kinds: patterns }, options.reason ?? NO_REASON, CLI_ACTOR);
        console.log(`domain ${name}: ${changed.to.join(", ")} (was ${changed.from.join(", ") || "none"})`);
      });
    });

  domain
    .command("remove")
    .description("remove a domain (refused while people or working tokens hold a role in it)")
    .argument("<name>", "which domain")
    .addOption(reasonOption())
    .action(async (nameArg: string, options: { reason?: string }) => {
      const name = domainName(nameArg, fail);
      await withDatabase(async () => {
        const removed = await removeDomain(name, options.reason ?? NO_REASON, CLI_ACTOR);
        console.log(`removed domain ${name}; its kinds (${removed.kinds.join(", ")}) are now in no domain`);
      });
    });
}

/** `user grant` and `user revoke`, on the `user` command that cli/people-commands.ts made. */
export function registerGrantCommands(user: Command, withDatabase: WithDatabase, fail: Fail): void {
  const options = (command: Command) =>
    command
      .requiredOption("--email <email>", "whom")
      .addOption(new Option("--role <role>", "which role").choices(PERSON_ROLES).makeOptionMandatory())
      .option("--domain <name>", "in this domain only (default: every domain)")
      .addOption(new Option("--reason <text>", "why, for the decision log"));
  type Options = { email: string; role: PersonRole; domain?: string; reason?: string };
  const where = (d: string | null) => (d === null ? "every domain" : `domain ${d}`);

  options(user.command("grant").description("give a person a role, in one domain or everywhere")).action(
    async (o: Options) => {
      const domain = o.domain === undefined ? null : parseWith(domainNameSchema, o.domain, "--domain", fail);
      await withDatabase(async () => {
        const g = await grantRole({ email: o.email }, o.role, domain, o.reason ?? NO_REASON, CLI_ACTOR);
        console.log(`${g.email} is now ${g.role} in ${where(g.domain)}`);
        if (g.headline.from !== g.headline.to) console.log(`headline role: ${g.headline.to} (was ${g.headline.from})`);
      });
    },
  );

  options(
    user
      .command("revoke")
      .description("take a role away; revoking the last one leaves the person unable to do anything"),
  ).action(async (o: Options) => {
    const domain = o.domain === undefined ? null : parseWith(domainNameSchema, o.domain, "--domain", fail);
    await withDatabase(async () => {
      const g = await revokeRole({ email: o.email }, o.role, domain, o.reason ?? NO_REASON, CLI_ACTOR);
      console.log(`${g.email} is no longer ${g.role} in ${where(g.domain)}`);
      if (g.headline.from !== g.headline.to) console.log(`headline role: ${g.headline.to} (was ${g.headline.from})`);
      for (const line of pausedLines(g.paused)) console.log(line);
    });
  });
}
