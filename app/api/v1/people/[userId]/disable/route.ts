import * as responses from "@/lib/openapi/responses";
import { userIdParams, ok, personErrors, error } from "@/lib/openapi/parts";
import { changeActorOf } from "@/lib/access";
import { personAnswer } from "@/lib/http/people-routes";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { disableUser, reasonOnlySchema } from "@/lib/users";

/** POST /api/v1/people/{userId}/disable {reason} (admin): no more sign-ins; their sessions end now. */
export const POST = apiRoute<{ userId: string }>(
  {
    method: "POST",
    route: "/api/v1/people/[userId]/disable",
    operationId: "disablePerson",
    summary: "Disable a person",
    description: "No more sign-ins; their sessions end now; what ran on their authority pauses.",
    tag: "People and tokens",
    access: { kind: "permission", permission: "users.manage" },
    params: userIdParams,
    body: reasonOnlySchema,
    answers: {
      ...ok("The person, the sessions ended and what paused.", responses.personChangedSchema),
      ...personErrors("Already disabled (`already-disabled`)."),
      422: error("Nobody may disable themselves (`own-account`)."),
    },
  },
  async ({ request, actor, params }) => {
    const { data } = await parseJsonBody(request, reasonOnlySchema);
    const disabled = await disableUser({ id: params.userId }, data.reason, changeActorOf(actor));
    return personAnswer(disabled.userId, { sessionsEnded: disabled.sessionsEnded, paused: disabled.paused });
  },
);
