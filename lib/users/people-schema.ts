import { z } from "zod";
import { isTimeZone } from "@/lib/time-zone";
import { PERSON_ROLES } from "@/lib/access/client";
import { domainNameSchema } from "@/lib/domains";
import { reasonSchema } from "@/lib/reviews";

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

// A person's own settings (lib/users/preferences.ts, ADR 0043).
export const timeZoneSchema = z
  .string()
  .max(64)
  .refine(isTimeZone, "an IANA time zone name, such as Europe/Berlin, or UTC")
  .meta({
    description:
      "`UTC` or an IANA time zone name (`America/Los_Angeles`): every time the console shows and reads is in it.",
  });

export const preferencesSchema = z.object({ timeZone: timeZoneSchema }).meta({ id: "Preferences" });

export type Preferences = z.infer<typeof preferencesSchema>;
