import { requestOrigin } from "@/lib/auth/better-auth";
import type { PasswordLink } from "@/lib/auth/password-links";
import { ApiError } from "@/lib/http/errors";
import { getUserView } from "./list-users";
import type { ChangeRefused } from "./person-change";

// What the /api/v1/people routes share: refusals as API errors, the person as they now are, and
// a password link as an absolute URL of this site.

export function refusal(result: ChangeRefused): never {
  throw new ApiError(result.status, result.code, result.message);
}

export async function personAnswer(userId: string, extra: Record<string, unknown> = {}, status = 200) {
  const person = await getUserView(userId);
  if (!person) throw new ApiError(404, "not-found", `no person ${userId}`);
  return Response.json({ person, ...extra }, { status });
}

/** The link as the admin hands it over: this site's origin (as the browser addressed it) and path. */
export function linkAnswer(request: Request, link: PasswordLink) {
  return { url: `${requestOrigin(request.headers, request.url)}${link.path}`, expiresAt: link.expiresAt.toISOString() };
}
