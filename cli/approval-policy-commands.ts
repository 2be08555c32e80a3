import { type Command, InvalidArgumentError, Option } from "commander";
import { CLI_ACTOR } from "@/lib/access";
import {
  listPolicies,
  removePolicy,
  setPolicy,
  APPROVAL_DECISIONS,
  type ApprovalDecision,
  policyRemoveSchema,
  policySetSchema,
} from "@/lib/approvals";
import type { WithDatabase } from "./audit-commands";
import { NO_REASON } from "./people-commands";
import { printTable } from "./table";

// `review-console approval-policy …`: which decisions wait for a second person
// (docs/decisions/0031-four-eyes-approvals.md). Changes are logged as `system:cli`.

const UNIT_SECONDS: Record<string, number> = { m: 60, h: 3600, d: 86_400 };

/** `90m`, `24h`, `7d` -> seconds. */
export function parseExpiresAfter(value: string): number {
  const match = /^(\d{1,6})(m|h|d)$/.exec(value.trim());
  if (!match) throw new InvalidArgumentError("must be <n>m, <n>h or <n>d (e.g. 90m, 24h, 7d)");
  return Number(match[1]) * UNIT_SECONDS[match[2]!]!;
}

function wholeNumber(value: string): number {
  if (!/^\d{1,7}$/.test(value)) throw new InvalidArgumentError("must be a whole number >= 0");
  return Number(value);
}

function duration(seconds: number): string {
  if (seconds % 86_400 === 0) return `${seconds / 86_400}d`;
  if (seconds % 3600 === 0) return `${seconds / 3600}h`;
  return `${Math.round(seconds / 60)}m`;
}

/** The schema's first problem as one line: `domain: ...`. */
function checked<T>(
  schema: {
    safeParse(
      v: unknown,
    ): { success: true; data: T } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } };
  },
  value: unknown,
  fail: (message: string) => Error,
): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw fail(`${issue.path.join(".") || "input"}: ${issue.message}`);
}

export function registerApprovalPolicyCommands(
  program: Command,
  withDatabase: WithDatabase,
  fail: (message: string) => Error,
): void {
  const policy = program
    .command("approval-policy")
    .description("which decisions wait for a second person's approval, per domain");
  const decisionOption = () =>
    new Option("--decision <decision>", "the decision").choices(APPROVAL_DECISIONS).makeOptionMandatory();

  policy
    .command("set")
    .description("create or replace the policy of a decision in a domain (no --domain: the default)")
    .addOption(decisionOption())
    .option("--domain <name>", "the domain (default: every domain without its own policy)")
    .option("--above <n>", "operations only: approval when the selection has more records than this", wholeNumber)
    .option("--expires-after <duration>", "how long a request waits: 90m, 24h, 7d (default 24h)", parseExpiresAfter)
    .option("--reason <text>", "why, for the decision log")
    .action(
      async (options: {
        decision: ApprovalDecision;
        domain?: string;
        above?: number;
        expiresAfter?: number;
        reason?: string;
      }) => {
        const input = checked(
          policySetSchema,
          {
            decision: options.decision,
            domain: options.domain ?? null,
            ...(options.above !== undefined ? { minRecords: options.above } : {}),
            ...(options.expiresAfter !== undefined ? { expiresAfterSeconds: options.expiresAfter } : {}),
            reason: options.reason ?? NO_REASON,
          },
          fail,
        );
        await withDatabase(async () => {
          const set = await setPolicy(input, CLI_ACTOR);
          const above =
            set.decision === "operation"
              ? set.minRecords === null
                ? ", always"
                : `, above ${set.minRecords} records`
              : "";
          console.log(
            `approval policy ${set.decision} in ${set.domain ?? "every domain (default)"}${above}, expires after ${duration(set.expiresAfterSeconds)}`,
          );
        });
      },
    );

  policy
    .command("remove")
    .description("remove the policy of a decision in a domain; requests already waiting stay")
    .addOption(decisionOption())
    .option("--domain <name>", "the domain (default: the default policy)")
    .option("--reason <text>", "why, for the decision log")
    .action(async (options: { decision: ApprovalDecision; domain?: string; reason?: string }) => {
      const input = checked(
        policyRemoveSchema,
        { decision: options.decision, domain: options.domain ?? null, reason: options.reason ?? NO_REASON },
        fail,
      );
      await withDatabase(async () => {
        await removePolicy(input, CLI_ACTOR);
        console.log(`removed approval policy ${input.decision} in ${input.domain ?? "every domain (default)"}`);
      });
    });

  policy
    .command("list")
    .description("every policy: domain, decision, above, expires after, who set it")
    .option("--decision <decision>", "only this decision")
    .option("--domain <name>", "only this domain")
    .action(async (options: { decision?: string; domain?: string }) => {
      await withDatabase(async () => {
        const policies = (await listPolicies()).filter(
          (p) =>
            (!options.decision || p.decision === options.decision) && (!options.domain || p.domain === options.domain),
        );
        printTable(
          ["domain", "decision", "above", "expires after", "set by", "at"],
          policies.map((p) => [
            p.domain ?? "(default)",
            p.decision,
            p.decision === "operation" ? (p.minRecords === null ? "always" : String(p.minRecords)) : "-",
            duration(p.expiresAfterSeconds),
            p.updatedBy,
            p.updatedAt,
          ]),
        );
      });
    });
}
