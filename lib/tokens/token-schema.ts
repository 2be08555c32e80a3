import { z } from "zod";
import { ROLES } from "@/lib/access/client";
import { domainNameSchema } from "@/lib/domains/client";
import { reasonSchema } from "@/lib/reviews/client";

// The inputs of /api/v1/tokens (docs/api-additions.md), shared by the routes and the admin page.

/** What people and the CLI call a token by: printable, 1 to 200 characters. */
export const tokenNameSchema = z
  .string()
  .trim()
  .min(1, "must have 1 to 200 characters")
  .max(200, "must have 1 to 200 characters")
  .regex(/^[^\u0000-\u001f\u007f]+$/, "must not contain control characters");

/** The expiries the admin page offers, in days; null: never. */
export const EXPIRY_DAYS = [7, 30, 90, 365] as const;

export const createTokenSchema = z
  .object({
    name: tokenNameSchema,
    role: z.enum(ROLES),
    /** Whole days until it stops working, 1 to 3650; null: never. */
    expiresInDays: z.number().int("must be a whole number of days").min(1).max(3650).nullable(),
    /** The one domain it may report and claim in (ADR 0029); null or absent: every domain. */
    domain: domainNameSchema.nullable().optional(),
    reason: reasonSchema,
  })
  .meta({ id: "CreateTokenRequest" });
export type CreateTokenRequest = z.infer<typeof createTokenSchema>;

export const revokeTokenSchema = z.object({ reason: reasonSchema }).meta({ id: "RevokeTokenRequest" });
