import { changeActorOf } from "@/lib/access";
import { notFound } from "@/lib/domain/refusal";
import { isUuid } from "@/lib/domain/ids";
import { grantRequestSchema } from "@/lib/domains";
import { personAnswer } from "@/lib/http/people-routes";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { getUserView, grantRole, revokeRole } from "@/lib/users";

/** GET /api/v1/people/{userId}/grants (admin): the person's grants, global first. */
export const GET = apiRoute<{ userId: string }>("users.manage", async ({ params }) => {
  const person = isUuid(params.userId) ? await getUserView(params.userId) : null;
  if (!person) throw notFound(`no person ${params.userId}`);
  return Response.json({ grants: person.grants, role: person.role });
});

/** POST /api/v1/people/{userId}/grants {role, domain?, reason} (admin): one more grant; works from their next request. */
export const POST = apiRoute<{ userId: string }>("users.manage", async ({ request, actor, params }) => {
  const { data } = await parseJsonBody(request, grantRequestSchema);
  const g = await grantRole({ id: params.userId }, data.role, data.domain ?? null, data.reason, changeActorOf(actor));
  return personAnswer(g.userId, { headline: g.headline, paused: g.paused }, 201);
});

/** DELETE /api/v1/people/{userId}/grants {role, domain?, reason} (admin): takes one grant away. */
export const DELETE = apiRoute<{ userId: string }>("users.manage", async ({ request, actor, params }) => {
  const { data } = await parseJsonBody(request, grantRequestSchema);
  const g = await revokeRole({ id: params.userId }, data.role, data.domain ?? null, data.reason, changeActorOf(actor));
  return personAnswer(g.userId, { headline: g.headline, paused: g.paused });
});
