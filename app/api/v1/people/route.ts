import { changeActorOf } from "@/lib/access";
import { linkAnswer, personAnswer } from "@/lib/http/people-routes";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { inviteUser, listUsers, inviteSchema } from "@/lib/users";

/** GET /api/v1/people (admin): everyone who signs in, by email. */
export const GET = apiRoute("users.manage", async () => Response.json({ people: await listUsers() }));

/** POST /api/v1/people {email, role, domain?, reason} (admin): invites a person; the one-time link is in the answer, once. */
export const POST = apiRoute("users.manage", async ({ request, actor }) => {
  const { data } = await parseJsonBody(request, inviteSchema);
  const invited = await inviteUser(
    { email: data.email, role: data.role, domain: data.domain ?? null },
    data.reason,
    changeActorOf(actor),
  );
  return personAnswer(invited.userId, { link: linkAnswer(request, invited.link) }, 201);
});
