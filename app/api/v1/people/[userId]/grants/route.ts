import * as responses from "@/lib/openapi/responses";
import { userIdParams, ok, error } from "@/lib/openapi/parts";
import { changeActorOf } from "@/lib/access";
import { notFound } from "@/lib/domain/refusal";
import { isUuid } from "@/lib/domain/ids";
import { grantRequestSchema } from "@/lib/domains";
import { personAnswer } from "@/lib/http/people-routes";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { getUserView, grantRole, revokeRole } from "@/lib/users";

/** GET /api/v1/people/{userId}/grants (admin): the person's grants, global first. */
export const GET = apiRoute<{ userId: string }>(
  {
    method: "GET",
    route: "/api/v1/people/[userId]/grants",
    operationId: "listPersonGrants",
    summary: "A person's grants",
    tag: "Domains",
    access: { kind: "permission", permission: "users.manage" },
    params: userIdParams,
    answers: {
      ...ok("The grants and the headline role.", responses.grantListSchema),
      404: error("No person with this id."),
    },
  },
  async ({ params }) => {
    const person = isUuid(params.userId) ? await getUserView(params.userId) : null;
    if (!person) throw notFound(`no person ${params.userId}`);
    return Response.json({ grants: person.grants, role: person.role });
  },
);

/** POST /api/v1/people/{userId}/grants {role, domain?, reason} (admin): one more grant; works from their next request. */
export const POST = apiRoute<{ userId: string }>(
  {
    method: "POST",
    route: "/api/v1/people/[userId]/grants",
    operationId: "grantPersonRole",
    summary: "Grant a person a role, in a domain or everywhere",
    description: "Works from the person's next request (grants are read per request); sessions do not end.",
    tag: "Domains",
    access: { kind: "permission", permission: "users.manage" },
    params: userIdParams,
    body: grantRequestSchema,
    answers: {
      ...ok("The person as they now are.", responses.grantChangedSchema, 201),
      404: error("No person with this id, or no such domain."),
      409: error("They hold this grant already (`grant-exists`)."),
      422: error("Nobody may change their own grants (`own-account`)."),
    },
  },
  async ({ request, actor, params }) => {
    const { data } = await parseJsonBody(request, grantRequestSchema);
    const g = await grantRole({ id: params.userId }, data.role, data.domain ?? null, data.reason, changeActorOf(actor));
    return personAnswer(g.userId, { headline: g.headline, paused: g.paused }, 201);
  },
);

/** DELETE /api/v1/people/{userId}/grants {role, domain?, reason} (admin): takes one grant away. */
export const DELETE = apiRoute<{ userId: string }>(
  {
    method: "DELETE",
    route: "/api/v1/people/[userId]/grants",
    operationId: "revokePersonRole",
    summary: "Take a grant away",
    description:
      "Allowed for the last grant too: the person can then do nothing. The headline role moves to a remaining grant; what ran on their authority and may no longer pauses.",
    tag: "Domains",
    access: { kind: "permission", permission: "users.manage" },
    params: userIdParams,
    body: grantRequestSchema,
    answers: {
      ...ok("The person as they now are.", responses.grantChangedSchema),
      404: error("No person with this id, or they hold no such manual grant."),
      422: error("Nobody may change their own grants (`own-account`)."),
    },
  },
  async ({ request, actor, params }) => {
    const { data } = await parseJsonBody(request, grantRequestSchema);
    const g = await revokeRole(
      { id: params.userId },
      data.role,
      data.domain ?? null,
      data.reason,
      changeActorOf(actor),
    );
    return personAnswer(g.userId, { headline: g.headline, paused: g.paused });
  },
);
