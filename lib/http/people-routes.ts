import { requestOrigin } from "@/lib/auth";
import type { PasswordLink } from "@/lib/auth";
import { notFound } from "@/lib/domain/refusal";
import { getUserView } from "@/lib/users";

// What the /api/v1/people routes share: the person as they now are, and a password link as an
// absolute URL of this site. Refusals are thrown by lib/users/* and answered by apiRoute.

export async function personAnswer(userId: string, extra: Record<string, unknown> = {}, status = 200) {
  const person = await getUserView(userId);
  if (!person) throw notFound(`no person ${userId}`);
  return Response.json({ person, ...extra }, { status });
}

/** The link as the admin hands it over: this site's origin (as the browser addressed it) and path. */
export function linkAnswer(request: Request, link: PasswordLink) {
  return { url: `${requestOrigin(request.headers, request.url)}${link.path}`, expiresAt: link.expiresAt.toISOString() };
}
