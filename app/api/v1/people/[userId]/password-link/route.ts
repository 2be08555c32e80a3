import * as responses from "@/lib/openapi/responses";
import { userIdParams, ok, personErrors } from "@/lib/openapi/parts";
import { changeActorOf } from "@/lib/access";
import { linkAnswer, personAnswer } from "@/lib/http/people-routes";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { reasonOnlySchema, resetPassword } from "@/lib/users";

/**
 * POST /api/v1/people/{userId}/password-link {reason} (admin): resets the password (the old one
 * stops working, sessions end) and answers with a new one-time link to set one, once.
 */
export const POST = apiRoute<{ userId: string }>(
  {
    method: "POST",
    route: "/api/v1/people/[userId]/password-link",
    operationId: "resetPersonPassword",
    summary: "Reset a person's password",
    description: "The old password stops working, sessions end; a new one-time link is in this answer only.",
    tag: "People and tokens",
    access: { kind: "permission", permission: "users.manage" },
    params: userIdParams,
    body: reasonOnlySchema,
    answers: {
      ...ok("The person, the sessions ended and the link.", responses.passwordResetSchema),
      ...personErrors("The person is disabled (`disabled`)."),
    },
  },
  async ({ request, actor, params }) => {
    const { data } = await parseJsonBody(request, reasonOnlySchema);
    const reset = await resetPassword({ id: params.userId }, data.reason, changeActorOf(actor));
    return personAnswer(reset.userId, { sessionsEnded: reset.sessionsEnded, link: linkAnswer(request, reset.link) });
  },
);
