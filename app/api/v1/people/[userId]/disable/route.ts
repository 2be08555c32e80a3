import { changeActorOf } from "@/lib/access";
import { personAnswer } from "@/lib/http/people-routes";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { disableUser, reasonOnlySchema } from "@/lib/users";

/** POST /api/v1/people/{userId}/disable {reason} (admin): no more sign-ins; their sessions end now. */
export const POST = apiRoute<{ userId: string }>("users.manage", async ({ request, actor, params }) => {
  const { data } = await parseJsonBody(request, reasonOnlySchema);
  const disabled = await disableUser({ id: params.userId }, data.reason, changeActorOf(actor));
  return personAnswer(disabled.userId, { sessionsEnded: disabled.sessionsEnded, paused: disabled.paused });
});
