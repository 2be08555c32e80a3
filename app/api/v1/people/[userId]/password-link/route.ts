import { changeActorOf } from "@/lib/access";
import { linkAnswer, personAnswer } from "@/lib/http/people-routes";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { reasonOnlySchema, resetPassword } from "@/lib/users";

/**
 * POST /api/v1/people/{userId}/password-link {reason} (admin): resets the password (the old one
 * stops working, sessions end) and answers with a new one-time link to set one, once.
 */
export const POST = apiRoute<{ userId: string }>("users.manage", async ({ request, actor, params }) => {
  const { data } = await parseJsonBody(request, reasonOnlySchema);
  const reset = await resetPassword({ id: params.userId }, data.reason, changeActorOf(actor));
  return personAnswer(reset.userId, { sessionsEnded: reset.sessionsEnded, link: linkAnswer(request, reset.link) });
});
