import { z } from "zod";
import { reasonSchema } from "@/lib/reviews/client";

// The four-eyes vocabulary (docs/decisions/0031-four-eyes-approvals.md). Isomorphic: the console's
// forms read the same lists.

/** Decisions a policy can hold back for a second person. */
export const APPROVAL_DECISIONS = ["operation", "cancel", "confirm-applied", "skip-gap"] as const;
export type ApprovalDecision = (typeof APPROVAL_DECISIONS)[number];

export const APPROVAL_STATUSES = ["pending", "approved", "rejected", "expired", "failed", "withdrawn"] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** Record actions a policy may hold back (the rest always run at once). */
export function isApprovableAction(action: string): action is Exclude<ApprovalDecision, "operation"> {
  return action === "cancel" || action === "confirm-applied" || action === "skip-gap";
}

export const MIN_EXPIRY_SECONDS = 60;
export const MAX_EXPIRY_SECONDS = 30 * 24 * 3600;
export const DEFAULT_EXPIRY_SECONDS = 24 * 3600;

const domainName = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,62}$/, "a domain name: lower-case letters, digits and -, starting with a letter")
  .meta({ description: "The domain; null or absent: the default for every domain." });

/** PUT /api/v1/approval-policies: sets (creates or replaces) one policy. */
export const policySetSchema = z
  .object({
    decision: z.enum(APPROVAL_DECISIONS),
    domain: domainName.nullable().optional(),
    minRecords: z
      .int()
      .min(0)
      .max(1_000_000)
      .nullable()
      .optional()
      .meta({ description: "Operations only: approval when the selection has more records than this; null: always." }),
    expiresAfterSeconds: z
      .int()
      .min(MIN_EXPIRY_SECONDS)
      .max(MAX_EXPIRY_SECONDS)
      .optional()
      .meta({ description: "How long a request waits before it expires (60 s to 30 days; default 24 h)." }),
    reason: reasonSchema,
  })
  .superRefine((body, ctx) => {
    if (body.decision !== "operation" && body.minRecords !== undefined && body.minRecords !== null) {
      ctx.addIssue({ code: "custom", path: ["minRecords"], message: "only an operation policy has a record count" });
    }
  })
  .meta({ id: "ApprovalPolicySet", description: "One approval policy, per decision and domain." });
export type PolicySetRequest = z.infer<typeof policySetSchema>;

/** POST /api/v1/approval-policies/remove. */
export const policyRemoveSchema = z
  .object({ decision: z.enum(APPROVAL_DECISIONS), domain: domainName.nullable().optional(), reason: reasonSchema })
  .meta({ id: "ApprovalPolicyRemove" });
export type PolicyRemoveRequest = z.infer<typeof policyRemoveSchema>;

/** POST /api/v1/approvals/{approvalId}/approve and /reject. */
export const approvalAnswerSchema = z.object({ reason: reasonSchema }).meta({ id: "ApprovalAnswer" });

/** GET /api/v1/approvals. */
export const approvalListQuerySchema = z.object({
  status: z
    .enum([...APPROVAL_STATUSES, "all"])
    .optional()
    .meta({ description: "Which requests (default `pending`)." }),
  reviewId: z.uuid().optional().meta({ description: "Only the requests about this record." }),
});
export type ApprovalListQuery = z.infer<typeof approvalListQuerySchema>;
