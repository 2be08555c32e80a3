import { z } from "zod";
import { PERSON_ROLES } from "@/lib/auth/person-roles";
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
    reason: reasonSchema,
  })
  .meta({ id: "InviteRequest" });

export const setRoleSchema = z
  .object({ role: z.enum(PERSON_ROLES), reason: reasonSchema })
  .meta({ id: "SetRoleRequest" });

export const reasonOnlySchema = z.object({ reason: reasonSchema }).meta({ id: "ReasonRequest" });
