import * as responses from "@/lib/openapi/responses";
import { ok, error } from "@/lib/openapi/parts";
import { changeActorOf } from "@/lib/access";
import { linkAnswer, personAnswer } from "@/lib/http/people-routes";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { inviteUser, listUsers, inviteSchema } from "@/lib/users";

/** GET /api/v1/people (admin): everyone who signs in, by email. */
export const GET = apiRoute(
  {
    method: "GET",
    route: "/api/v1/people",
    operationId: "listPeople",
    summary: "Everyone who signs in",
    tag: "People and tokens",
    access: { kind: "permission", permission: "users.manage" },
    answers: ok("People by email.", responses.peopleListSchema),
  },
  async () => Response.json({ people: await listUsers() }),
);

/** POST /api/v1/people {email, role, domain?, reason} (admin): invites a person; the one-time link is in the answer, once. */
export const POST = apiRoute(
  {
    method: "POST",
    route: "/api/v1/people",
    operationId: "invitePerson",
    summary: "Invite a person",
    description: "The one-time link to set a password is in this answer only.",
    tag: "People and tokens",
    access: { kind: "permission", permission: "users.manage" },
    body: inviteSchema,
    answers: {
      ...ok("The invited person and their link.", responses.invitedSchema, 201),
      404: error("No such domain (`domain`, ADR 0029)."),
      409: error("The email is taken (`email-taken`)."),
      422: error("`admin` given with a domain (`global-role`): an admin manages every domain."),
    },
  },
  async ({ request, actor }) => {
    const { data } = await parseJsonBody(request, inviteSchema);
    const invited = await inviteUser(
      { email: data.email, role: data.role, domain: data.domain ?? null },
      data.reason,
      changeActorOf(actor),
    );
    return personAnswer(invited.userId, { link: linkAnswer(request, invited.link) }, 201);
  },
);
