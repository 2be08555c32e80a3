import { z } from "zod";
import { PERSON_ROLES } from "@/lib/access/client";
import { reasonSchema } from "@/lib/reviews/client";
import { KIND_PATTERN } from "@/lib/domain/kinds";

// The inputs of /api/v1/domains and /api/v1/people/{id}/grants (docs/api-additions.md), shared by
// the routes, the CLI and the admin page. No server imports: the admin page validates with them.

/** Lower-case, like a DNS label (the migration's CHECK): it appears in URLs and CLI flags. */
export const domainNameSchema = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,62}$/, "must be 1 to 63 lower-case letters, digits or -, starting with a letter");

/** `card.charge` (a kind exactly) or `invoice.*` (every kind under `invoice.`). */
export const kindPatternSchema = z
  .string()
  .trim()
  .max(200, "must have at most 200 characters")
  .regex(KIND_PATTERN, "must be a kind (card.charge) or a prefix ending in .* (invoice.*)");

export const kindPatternsSchema = z
  .array(kindPatternSchema)
  .min(1, "name at least one kind")
  .max(200, "at most 200 kinds")
  .refine((kinds) => new Set(kinds).size === kinds.length, "a kind is named twice");

export const descriptionSchema = z.string().trim().max(500, "must have at most 500 characters").nullable();

export const createDomainSchema = z
  .object({
    name: domainNameSchema,
    kinds: kindPatternsSchema,
    description: descriptionSchema.optional(),
    reason: reasonSchema,
  })
  .meta({ id: "CreateDomainRequest" });

export const updateDomainSchema = z
  .object({ kinds: kindPatternsSchema.optional(), description: descriptionSchema.optional(), reason: reasonSchema })
  .refine((b) => b.kinds !== undefined || b.description !== undefined, {
    message: "say what changes: kinds or description",
    path: ["kinds"],
  })
  .meta({ id: "UpdateDomainRequest" });

export const removeDomainSchema = z.object({ reason: reasonSchema }).meta({ id: "RemoveDomainRequest" });

/** One grant to add or remove; `domain` null or absent: every domain (global). */
export const grantRequestSchema = z
  .object({ role: z.enum(PERSON_ROLES), domain: domainNameSchema.nullable().optional(), reason: reasonSchema })
  .meta({ id: "GrantRequest" });

/** `a, b ,c` → `[a, b, c]`: how the CLI and the admin page take a list of kinds. */
export function splitKinds(text: string): string[] {
  return text
    .split(",")
    .map((k) => k.trim())
    .filter((k) => k.length > 0);
}
