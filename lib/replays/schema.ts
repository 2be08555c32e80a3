import { z } from "zod";

const name = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(200)
  .refine((s) => !s.includes("\u0000"), "must not contain NUL characters");

export const claimSchema = z
  .object({
    consumer: name,
    kinds: z.array(name).min(1).max(50).optional(),
    limit: z.int().min(1).max(100).optional(),
    /** How long the claim holds before another consumer may take the replay over. */
    leaseSeconds: z.int().min(5).max(3600).optional(),
  })
  .meta({ id: "ClaimRequest" });
export type ClaimRequest = z.infer<typeof claimSchema>;

export const renewSchema = z
  .object({
    consumer: name,
    replayIds: z.array(z.uuid()).min(1).max(100),
    /** From now: how long the renewed claims hold. */
    leaseSeconds: z.int().min(5).max(3600).optional(),
  })
  .meta({ id: "RenewRequest" });
export type RenewRequest = z.infer<typeof renewSchema>;

export const REPLAY_OUTCOMES = ["applied", "duplicate-suppressed", "routed", "failed"] as const;

export const outcomeSchema = z
  .object({
    outcome: z.enum(REPLAY_OUTCOMES),
    detail: z
      .string()
      .max(20_000)
      .refine((s) => !s.includes("\u0000"), "must not contain NUL characters")
      .optional(),
    /** For `routed` (held again): the new reason and check, as the decision gave them. */
    reason: name.optional(),
    requiredCheck: z.string().trim().min(1).max(2000).optional(),
  })
  .meta({ id: "OutcomeRequest" });
export type OutcomeRequest = z.infer<typeof outcomeSchema>;
