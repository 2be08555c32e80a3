import { type Actor, grantsOf, recordScope } from "@/lib/access";
import { invalidField } from "@/lib/domain/refusal";
import { apiRoute, parseQuery } from "@/lib/http/route";
import { reportReview } from "@/lib/reviews/intake-routes";
import { listReviews } from "@/lib/reviews/list";
import { reviewListQuerySchema } from "@/lib/reviews/schema";

export const GET = apiRoute("reviews.read", async ({ request, actor }) => {
  const { assignee, ...query } = parseQuery(request, reviewListQuerySchema);
  const scope = await recordScope(grantsOf(actor));
  return Response.json(await listReviews({ ...query, assigneeId: assigneeIdOf(assignee, actor) }, scope));
});

/** `assignee=me|none|<id>` as the list filters: `me` is the caller, who must be a person. */
function assigneeIdOf(assignee: string | undefined, actor: Actor): string | null | undefined {
  if (assignee === undefined) return undefined;
  if (assignee === "none") return null;
  if (assignee !== "me") return assignee.toLowerCase();
  if (actor.kind !== "user")
    throw invalidField("assignee", "me needs a signed-in person; a token names the person by id");
  return actor.id;
}

// The handler lives in lib/reviews/intake-routes.ts: the console's own server answers bearer
// requests with it directly (lib/net/intake-fast-path.ts), so both ways in share one definition.
export const POST = reportReview;
