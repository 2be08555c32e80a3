import * as responses from "@/lib/openapi/responses";
import { userIdParams, ok, personErrors } from "@/lib/openapi/parts";
import { changeActorOf } from "@/lib/access";
import { personAnswer } from "@/lib/http/people-routes";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { enableUser, reasonOnlySchema } from "@/lib/users";

/** POST /api/v1/people/{userId}/enable {reason} (admin): they may sign in again. */
export const POST = apiRoute<{ userId: string }>(
  {
    method: "POST",
    route: "/api/v1/people/[userId]/enable",
    operationId: "enablePerson",
    summary: "Enable a person again",
    tag: "People and tokens",
    access: { kind: "permission", permission: "users.manage" },
    params: userIdParams,
    body: reasonOnlySchema,
    answers: { ...ok("The person.", responses.personEnabledSchema), ...personErrors("Not disabled (`not-disabled`).") },
  },
  async ({ request, actor, params }) => {
    const { data } = await parseJsonBody(request, reasonOnlySchema);
    const enabled = await enableUser({ id: params.userId }, data.reason, changeActorOf(actor));
    return personAnswer(enabled.userId);
  },
);
