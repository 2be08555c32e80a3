import { changeActorOf } from "@/lib/access";
import { personAnswer } from "@/lib/http/people-routes";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { enableUser, reasonOnlySchema } from "@/lib/users";

/** POST /api/v1/people/{userId}/enable {reason} (admin): they may sign in again. */
export const POST = apiRoute<{ userId: string }>("users.manage", async ({ request, actor, params }) => {
  const { data } = await parseJsonBody(request, reasonOnlySchema);
  const enabled = await enableUser({ id: params.userId }, data.reason, changeActorOf(actor));
  return personAnswer(enabled.userId);
});
