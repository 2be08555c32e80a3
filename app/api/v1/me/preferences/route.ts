import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { preferencesSchema, personOf, preferencesOf, setPreferences } from "@/lib/users";

/** GET /api/v1/me/preferences: the signed-in person's settings. */
export const GET = apiRoute("preferences.own", async ({ actor }) =>
  Response.json({ preferences: await preferencesOf(actor) }),
);

/** PUT /api/v1/me/preferences {timeZone}: changes them; every time the console shows follows. */
export const PUT = apiRoute("preferences.own", async ({ request, actor }) => {
  personOf(actor); // a token is refused before its body is read
  const { data } = await parseJsonBody(request, preferencesSchema);
  return Response.json({ preferences: await setPreferences(actor, data) });
});
