import { z } from "zod";
import { can, type Permission, type Role, canIn, type Grant } from "@/lib/access/client";
import type { ReviewStatus } from "./schema";

// Isomorphic: the console offers exactly the actions the server will accept (docs/contract.md,
// "Actions, precisely"), and the server refuses the rest with the same table.

export const ACTION_NAMES = [
  "replay",
  "correct-and-replay",
  "cancel",
  "confirm-applied",
  "confirm-not-applied",
  "skip-gap",
  "note",
] as const;
export type ActionName = (typeof ACTION_NAMES)[number];

/**
 * Actions that steer a record without resolving it (ADR 0028): its scheduled replay (run it now,
 * move it, withdraw it) and who it is assigned to. They go through the same endpoint, version
 * check, history and decision log as the actions above; the record page offers them in their own
 * controls, not in the action panel.
 */
export const CONTROL_NAMES = ["run-now", "reschedule", "unschedule", "assign"] as const;
export type ControlName = (typeof CONTROL_NAMES)[number];
export type AnyActionName = ActionName | ControlName;

type Category = "manual-review" | "sequence-gap" | "effect-result-unknown";

interface ActionRule {
  categories: readonly Category[];
  statuses: readonly ReviewStatus[] | "any";
  permission: "reviews.note" | "reviews.resolve" | "reviews.confirm" | "reviews.assign";
  label: string;
}

const ALL_CATEGORIES: readonly Category[] = ["manual-review", "sequence-gap", "effect-result-unknown"];

export const ACTION_RULES: Record<AnyActionName, ActionRule> = {
  note: {
    categories: ["manual-review", "sequence-gap", "effect-result-unknown"],
    statuses: "any",
    permission: "reviews.note",
    label: "Add a note",
  },
  replay: {
    // Never for effect-result-unknown before the provider's side is confirmed: a replay could
    // create the effect twice.
    categories: ["manual-review", "sequence-gap"],
    statuses: ["open"],
    permission: "reviews.resolve",
    label: "Replay",
  },
  "correct-and-replay": {
    categories: ["manual-review", "sequence-gap"],
    statuses: ["open"],
    permission: "reviews.resolve",
    label: "Correct and replay",
  },
  cancel: {
    categories: ["manual-review", "sequence-gap", "effect-result-unknown"],
    statuses: ["open", "replay-scheduled"],
    permission: "reviews.resolve",
    label: "Cancel the effect",
  },
  "confirm-applied": {
    categories: ["effect-result-unknown"],
    statuses: ["open"],
    permission: "reviews.confirm",
    label: "Provider confirms: applied",
  },
  "confirm-not-applied": {
    categories: ["effect-result-unknown"],
    statuses: ["open"],
    permission: "reviews.confirm",
    label: "Provider confirms: not applied",
  },
  "skip-gap": {
    categories: ["sequence-gap"],
    statuses: ["open"],
    permission: "reviews.resolve",
    label: "Skip the gap",
  },
  // The scheduled replay's controls: only while no consumer has claimed it (then it is replaying).
  "run-now": {
    categories: ALL_CATEGORIES,
    statuses: ["replay-scheduled"],
    permission: "reviews.resolve",
    label: "Run now",
  },
  reschedule: {
    categories: ALL_CATEGORIES,
    statuses: ["replay-scheduled"],
    permission: "reviews.resolve",
    label: "Reschedule",
  },
  unschedule: {
    categories: ALL_CATEGORIES,
    statuses: ["replay-scheduled"],
    permission: "reviews.resolve",
    label: "Unschedule",
  },
  // Who looks after a record while it is active; a finished record keeps its last assignee.
  assign: {
    categories: ALL_CATEGORIES,
    statuses: ["open", "replay-scheduled", "replaying"],
    permission: "reviews.assign",
    label: "Assign",
  },
};

export type ActionRefusal = "role" | "category" | "status";

/**
 * Who is asking: a bare role (held everywhere: the system's own actors), or a person's or
 * token's grants (ADR 0030), which are read against the record's domain.
 */
export type Authority = Role | readonly Grant[];

/** A record as the rules read it; `domain` null (or absent) is a record in no domain. */
export interface RuledRecord {
  category: string;
  status: ReviewStatus;
  domain?: string | null;
}

/** Does `who` hold `permission` for a record of `domain`? */
export function permits(who: Authority, permission: Permission, domain: string | null | undefined): boolean {
  return typeof who === "string" ? can(who, permission) : canIn(who, permission, domain ?? null);
}

/** Why `who` may not take `action` on a record in this state, or null when it may. */
export function actionRefusal(action: AnyActionName, record: RuledRecord, who: Authority): ActionRefusal | null {
  const rule = ACTION_RULES[action];
  if (!permits(who, rule.permission, record.domain)) return "role";
  if (!rule.categories.includes(record.category as Category)) return "category";
  if (rule.statuses !== "any" && !rule.statuses.includes(record.status)) return "status";
  return null;
}

export function allowedActions(record: RuledRecord, who: Authority): ActionName[] {
  return ACTION_NAMES.filter((action) => actionRefusal(action, record, who) === null);
}

/**
 * Every action of ACTION_NAMES but a note resolves something: the person must confirm the
 * required check. The controls (CONTROL_NAMES) resolve nothing: the check was confirmed when the
 * replay was scheduled, and an assignment decides nothing about the effect.
 */
export function needsCheckConfirmation(action: AnyActionName): boolean {
  return action !== "note" && (ACTION_NAMES as readonly string[]).includes(action);
}

/** Who a record is assigned to: a person's id or email, `me`, or null to unassign. */
export const assigneeSchema = z
  .string()
  .trim()
  .min(1, "must not be empty (null unassigns)")
  .max(320)
  .refine((s) => !s.includes("\u0000"), "must not contain NUL characters")
  .nullable()
  .meta({
    description:
      "For `assign`: the person's id or email, `me` (the signed-in person), or null to unassign. The person must be an owner or support and not disabled.",
  });

/** Why a person decided: every action, and every bulk operation and its controls, need one. */
export const reasonSchema = z
  .string({ error: "a reason is required" })
  .trim()
  .min(1, "a reason is required")
  .max(2000)
  .refine((s) => !s.includes("\u0000"), "must not contain NUL characters")
  .meta({ id: "Reason", description: "Why (1 to 2,000 characters); it goes to the decision log." });

/**
 * When a replay runs: an ISO date-time with a zone, in years PostgreSQL and a person can mean
 * (year 0000 passes the ISO check but is out of PostgreSQL's range: a 400, not a 500).
 */
export const runAtSchema = z.iso.datetime({ offset: true }).refine((s) => {
  const year = new Date(s).getUTCFullYear();
  return year >= 2000 && year <= 9999;
}, "must be between the years 2000 and 9999");

/** The body of POST /api/v1/reviews/{id}/actions. */
export const actionRequestSchema = z
  .object({
    action: z.enum([...ACTION_NAMES, ...CONTROL_NAMES]),
    expectedVersion: z.int().min(1),
    reason: reasonSchema,
    checkDone: z.boolean().optional(),
    payload: z.record(z.string(), z.unknown()).optional(),
    envelope: z.record(z.string(), z.unknown()).optional(),
    runAt: runAtSchema.optional(),
    providerRef: z.string().trim().min(1).max(500).optional(),
    assignee: assigneeSchema.optional(),
  })
  .superRefine((body, ctx) => {
    if (needsCheckConfirmation(body.action) && body.checkDone !== true) {
      ctx.addIssue({ code: "custom", path: ["checkDone"], message: "confirm that the required check was done" });
    }
    if (body.action === "correct-and-replay" && !body.payload && !body.envelope) {
      ctx.addIssue({
        code: "custom",
        path: ["payload"],
        message: "a corrected payload (or missing envelope fields) is required",
      });
    }
    if (body.action === "confirm-applied" && !body.providerRef) {
      ctx.addIssue({ code: "custom", path: ["providerRef"], message: "the provider's reference is required" });
    }
    if (body.action === "reschedule") {
      if (!body.runAt) ctx.addIssue({ code: "custom", path: ["runAt"], message: "the new time is required" });
      else if (Date.parse(body.runAt) <= Date.now()) {
        ctx.addIssue({ code: "custom", path: ["runAt"], message: "must be in the future (use run-now for now)" });
      }
    }
    if ((body.action === "run-now" || body.action === "unschedule") && body.runAt) {
      ctx.addIssue({ code: "custom", path: ["runAt"], message: `${body.action} takes no runAt` });
    }
    if (body.action === "assign" && body.assignee === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["assignee"],
        message: "the person to assign (id, email or me) is required; null unassigns",
      });
    }
  })
  .meta({ id: "ActionRequest", description: "One action on a record; which fits which record is the action matrix." });
export type ActionRequest = z.infer<typeof actionRequestSchema>;
