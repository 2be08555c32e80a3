import { changeActorOf } from "@/lib/auth/actor-ref";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { setRoleSchema } from "@/lib/users/people-schema";
import { personAnswer, refusal } from "@/lib/users/people-route";
import { setUserRole } from "@/lib/users/set-user-role";

/** POST /api/v1/people/{userId}/role {role, reason} (admin): another role; their sessions end now. */
export const POST = apiRoute<{ userId: string }>("users.manage", async ({ request, actor, params }) => {
  const { data } = await parseJsonBody(request, setRoleSchema);
  const result = await setUserRole({ id: params.userId }, data.role, data.reason, changeActorOf(actor));
  if (!result.ok) refusal(result);
  return personAnswer(result.userId, { sessionsEnded: result.sessionsEnded, paused: result.paused });
});
