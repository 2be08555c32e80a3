import { objectMembers, sliceSpan } from "@review-console/contract";
import type { Actor } from "@/lib/auth/actor";
import { invalidField } from "@/lib/domain/refusal";
import { apiRoute, parseJsonBody, parseQuery } from "@/lib/http/route";
import { intakeReport } from "@/lib/reviews/intake";
import { listReviews } from "@/lib/reviews/list";
import { reportSchema, reviewListQuerySchema } from "@/lib/reviews/schema";

export const GET = apiRoute("reviews.read", async ({ request, actor }) => {
  const { assignee, ...query } = parseQuery(request, reviewListQuerySchema);
  return Response.json(await listReviews({ ...query, assigneeId: assigneeIdOf(assignee, actor) }));
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

export const POST = apiRoute("reviews.report", async ({ request, actor }) => {
  const { data, text } = await parseJsonBody(request, reportSchema, { asReceived: true });
  const rawMessage = sliceSpan(text, objectMembers(text, 0).get("message"));
  // Joined with concurrent reports of the same actor into one statement (lib/reviews/intake-coalescer.ts).
  const result = await intakeReport({ input: data, rawMessage }, actor);
  return Response.json(
    { id: result.id, status: result.status, attempts: result.attempts },
    { status: result.created ? 201 : 200 },
  );
});
