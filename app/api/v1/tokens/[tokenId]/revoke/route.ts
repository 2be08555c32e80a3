import { changeActorOf } from "@/lib/auth/actor-ref";
import { ApiError } from "@/lib/http/errors";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { isUuid } from "@/lib/domain/ids";
import { getTokenView } from "@/lib/tokens/list-tokens";
import { revokeToken } from "@/lib/tokens/revoke-token";
import { revokeTokenSchema } from "@/lib/tokens/token-schema";

/** POST /api/v1/tokens/{tokenId}/revoke {reason} (admin): the token is a 401 from now on. */
export const POST = apiRoute<{ tokenId: string }>("users.manage", async ({ request, actor, params }) => {
  if (!isUuid(params.tokenId)) throw new ApiError(404, "not-found", `no token ${params.tokenId}`);
  const { data } = await parseJsonBody(request, revokeTokenSchema);
  const result = await revokeToken({ id: params.tokenId.toLowerCase() }, data.reason, changeActorOf(actor));
  if (!result.ok) throw new ApiError(result.status, result.code, result.message);
  const token = await getTokenView(result.revoked[0]!.id);
  return Response.json({ token, paused: result.paused });
});
