import { z } from "zod";
import { requiredText } from "@/lib/reviews/client";
import { savedQueryOf } from "./saved-query";

// Isomorphic: the bodies of /api/v1/views (docs/api-additions.md, "Saved views"), which the
// console's dialog sends.

/** The most views one person keeps: enough for every queue they triage, few enough to list whole. */
export const MAX_VIEWS_PER_PERSON = 50;
export const MAX_VIEW_NAME = 80;

const nameSchema = requiredText(MAX_VIEW_NAME).meta({
  description: `1 to ${MAX_VIEW_NAME} characters, trimmed; each of a person's views has its own name.`,
});

/** The queue's search string, refused (naming `query`) unless the queue's list would take it. */
const querySchema = z
  .string()
  .max(4000)
  .transform((raw, ctx) => {
    const result = savedQueryOf(raw);
    if (result.ok) return result.query;
    ctx.addIssue({ code: "custom", message: result.problem });
    return z.NEVER;
  })
  .meta({
    description:
      "The queue's URL search string (`status=open&kind=card.charge&sort=-attempts`, a leading `?` allowed): the " +
      "parameters of GET /api/v1/reviews, `status=all` and `view=groups`. Kept in one canonical form; `cursor` and " +
      "`limit` are dropped; anything else is a 400 naming `query`.",
  });

const sharedSchema = z.boolean().meta({ description: "Every person sees it; only its owner changes or deletes it." });

export const createViewSchema = z
  .object({ name: nameSchema, query: querySchema, shared: sharedSchema.optional() })
  .strict()
  .meta({ id: "SavedViewRequest" });
export type CreateViewInput = z.infer<typeof createViewSchema>;

export const updateViewSchema = z
  .object({ name: nameSchema.optional(), query: querySchema.optional(), shared: sharedSchema.optional() })
  .strict()
  .refine((change) => Object.values(change).some((v) => v !== undefined), "name, query or shared is required")
  .meta({ id: "SavedViewChange" });
export type UpdateViewInput = z.infer<typeof updateViewSchema>;
