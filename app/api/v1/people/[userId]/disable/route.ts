import { changeActorOf } from "@/lib/auth/actor-ref";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { disableUser } from "@/lib/users/disable-user";
import { reasonOnlySchema } from "@/lib/users/people-schema";
import { personAnswer, refusal } from "@/lib/users/people-route";

/** POST /api/v1/people/{userId}/disable {reason} (admin): no more sign-ins; their sessions end now. */
export const POST = apiRoute<{ userId: string }>("users.manage", async ({ request, actor, params }) => {
  const { data } = await parseJsonBody(request, reasonOnlySchema);
  const result = await disableUser({ id: params.userId }, data.reason, changeActorOf(actor));
  if (!result.ok) refusal(result);
  return personAnswer(result.userId, { sessionsEnded: result.sessionsEnded, paused: result.paused });
});
