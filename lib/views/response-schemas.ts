import { z } from "zod";

// The answers of /api/v1/views, for the OpenAPI document (the definitions in app/api/v1/views); the view
// the handlers answer with and the console's navigation reads is this schema's type.

export const savedViewSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    query: z
      .string()
      .meta({ description: "The queue's search string without `?`, canonical: open it as `/reviews?<query>`." }),
    shared: z.boolean(),
    mine: z.boolean().meta({ description: "The caller owns it: only then may they change or delete it." }),
    owner: z.object({ id: z.string(), name: z.string(), email: z.string() }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: "SavedView" });
export type SavedView = z.infer<typeof savedViewSchema>;

export const savedViewListSchema = z.object({
  views: z.array(savedViewSchema).meta({ description: "The caller's own views by name, then the team's shared ones." }),
});
export const savedViewOneSchema = z.object({ view: savedViewSchema });
