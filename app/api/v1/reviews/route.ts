import { objectMembers, sliceSpan } from "@review-console/contract";
import { apiRoute, parseJsonBody, parseQuery } from "@/lib/http/route";
import { intakeReport } from "@/lib/reviews/intake";
import { listReviews } from "@/lib/reviews/list";
import { listQuerySchema, reportSchema } from "@/lib/reviews/schema";

export const GET = apiRoute("reviews.read", async ({ request }) => {
  const query = parseQuery(request, listQuerySchema);
  return Response.json(await listReviews(query));
});

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
