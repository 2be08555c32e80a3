import { z } from "zod";
import { PERSON_ROLES } from "@/lib/access/person-roles";
import { domainNameSchema } from "@/lib/domains/schema";
import { reasonSchema } from "@/lib/reviews/action-rules";

// The inputs of /api/v1/people (docs/api-additions.md), shared by the routes and the admin page.
// Every change carries a reason: it goes to the decision log, as record actions' reasons do.

export const inviteSchema = z
  .object({
    email: z
      .email("must be an email address")
      .max(320)
      .transform((e) => e.toLowerCase()),
    role: z.enum(PERSON_ROLES),
    /** The first grant's domain (ADR 0029); null or absent: the role in every domain. */
    domain: domainNameSchema.nullable().optional(),
    reason: reasonSchema,
  })
  .meta({ id: "InviteRequest" });

export const setRoleSchema = z
  .object({ role: z.enum(PERSON_ROLES), reason: reasonSchema })
  .meta({ id: "SetRoleRequest" });

export const reasonOnlySchema = z.object({ reason: reasonSchema }).meta({ id: "ReasonRequest" });
