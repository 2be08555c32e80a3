import * as responses from "@/lib/openapi/responses";
import { userIdParams, ok, personErrors, error } from "@/lib/openapi/parts";
import { changeActorOf } from "@/lib/access";
import { personAnswer } from "@/lib/http/people-routes";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { setRoleSchema, setUserRole } from "@/lib/users";

/** POST /api/v1/people/{userId}/role {role, reason} (admin): another role; their sessions end now. */
export const POST = apiRoute<{ userId: string }>(
  {
    method: "POST",
    route: "/api/v1/people/[userId]/role",
    operationId: "setPersonRole",
    summary: "Give a person another role",
    description: "Their sessions end now; what ran on their authority and the new role may not do pauses.",
    tag: "People and tokens",
    access: { kind: "permission", permission: "users.manage" },
    params: userIdParams,
    body: setRoleSchema,
    answers: {
      ...ok("The person, the sessions ended and what paused.", responses.personChangedSchema),
      ...personErrors("They have this role already (`same-role`)."),
      422: error("Nobody may change their own role (`own-account`)."),
    },
  },
  async ({ request, actor, params }) => {
    const { data } = await parseJsonBody(request, setRoleSchema);
    const changed = await setUserRole({ id: params.userId }, data.role, data.reason, changeActorOf(actor));
    return personAnswer(changed.userId, { sessionsEnded: changed.sessionsEnded, paused: changed.paused });
  },
);
