import * as responses from "@/lib/openapi/responses";
import { ok } from "@/lib/openapi/parts";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { preferencesSchema, personOf, preferencesOf, setPreferences } from "@/lib/users";

/** GET /api/v1/me/preferences: the signed-in person's settings. */
export const GET = apiRoute(
  {
    method: "GET",
    route: "/api/v1/me/preferences",
    operationId: "getPreferences",
    summary: "Your settings",
    description: "The signed-in person's settings: the zone the console shows and reads times in.",
    tag: "People and tokens",
    access: {
      kind: "permission",
      permission: "preferences.own",
      also: "A person only (`403 person-required` for a token).",
    },
    answers: ok("The settings.", responses.preferencesAnswerSchema),
  },
  async ({ actor }) => Response.json({ preferences: await preferencesOf(actor) }),
);

/** PUT /api/v1/me/preferences {timeZone}: changes them; every time the console shows follows. */
export const PUT = apiRoute(
  {
    method: "PUT",
    route: "/api/v1/me/preferences",
    operationId: "setPreferences",
    summary: "Change your settings",
    description: "Kept with the person's account: every page they open shows and reads times in the zone chosen here.",
    tag: "People and tokens",
    access: {
      kind: "permission",
      permission: "preferences.own",
      also: "A person only (`403 person-required` for a token).",
    },
    body: preferencesSchema,
    answers: ok("The settings as they now are.", responses.preferencesAnswerSchema),
  },
  async ({ request, actor }) => {
    personOf(actor); // a token is refused before its body is read
    const { data } = await parseJsonBody(request, preferencesSchema);
    return Response.json({ preferences: await setPreferences(actor, data) });
  },
);
