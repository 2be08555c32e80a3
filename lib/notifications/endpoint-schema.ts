import { z } from "zod";
import { reasonSchema } from "@/lib/reviews";
import { destinationRefusal } from "./destination";
import { EVENT_TYPES, WEBHOOK_FORMATS } from "./events";

// The inputs of /api/v1/webhooks (docs/api-additions.md), shared by the routes and the CLI.

/**
 * An absolute http(s) URL without user name or password (lists show it), at most 2,000 characters,
 * whose host is not an internal address in any spelling (URL parsing turns 2130706433, 0x7f000001
 * and 0177.0.0.1 into 127.0.0.1; ./destination.ts). A name is resolved and checked by addWebhook.
 */
export const webhookUrlSchema = z
  .string()
  .trim()
  .max(2000, "must have at most 2,000 characters")
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
    } catch {
      return false;
    }
  }, "must be an absolute http:// or https:// URL")
  .refine((value) => {
    try {
      const url = new URL(value);
      return url.username === "" && url.password === "";
    } catch {
      return true;
    }
  }, "must not contain a user name or password")
  .superRefine((value, context) => {
    let host: string;
    try {
      host = new URL(value).hostname;
    } catch {
      return;
    }
    const refusal = destinationRefusal(host);
    if (refusal !== null) context.addIssue({ code: "custom", message: `must be a public address: ${refusal}` });
  });

export const domainNameSchema = z.string().regex(/^[a-z][a-z0-9-]{0,62}$/, "must be a domain name (a-z, 0-9, -)");

/** An endpoint as an admin defines it: adding one (POST) and changing one (PUT: all of it again). */
export const webhookDefinitionSchema = z
  .object({
    url: webhookUrlSchema,
    /** null or absent: every domain's events. */
    domain: domainNameSchema.nullable().default(null),
    /** Absent: every event type. */
    events: z
      .array(z.enum(EVENT_TYPES))
      .min(1, "name at least one event type")
      .max(EVENT_TYPES.length)
      .default([...EVENT_TYPES]),
    format: z.enum(WEBHOOK_FORMATS).default("standard"),
    /** `open.above` fires when more records than this are open (in the endpoint's domain). */
    openAbove: z.number().int("must be a whole number").min(1).max(1_000_000_000).nullable().default(null),
    /** `oldest-open.above` fires when the oldest open record is older than this many seconds. */
    oldestOpenAboveSeconds: z.number().int("must be a whole number").min(1).max(315_360_000).nullable().default(null),
    /** Why, for the decision log: required, as for every other change an admin makes. */
    reason: reasonSchema,
  })
  .strict()
  .meta({ id: "WebhookDefinition" });
export type WebhookDefinition = z.input<typeof webhookDefinitionSchema>;

/** Removing, disabling or enabling an endpoint, or sending a delivery again: why, for the log. */
export const webhookReasonSchema = z.object({ reason: reasonSchema }).strict().meta({ id: "WebhookChangeReason" });

export const deliveriesQuerySchema = z
  .object({
    state: z.enum(["pending", "delivered", "failed"]).optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
  })
  .strict();
