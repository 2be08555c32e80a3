import { changeActorOf } from "@/lib/access";
import { personAnswer } from "@/lib/http/people-routes";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { setRoleSchema, setUserRole } from "@/lib/users";

/** POST /api/v1/people/{userId}/role {role, reason} (admin): another role; their sessions end now. */
export const POST = apiRoute<{ userId: string }>("users.manage", async ({ request, actor, params }) => {
  const { data } = await parseJsonBody(request, setRoleSchema);
  const changed = await setUserRole({ id: params.userId }, data.role, data.reason, changeActorOf(actor));
  return personAnswer(changed.userId, { sessionsEnded: changed.sessionsEnded, paused: changed.paused });
});
