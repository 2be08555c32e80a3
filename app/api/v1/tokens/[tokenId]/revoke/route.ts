import { changeActorOf } from "@/lib/access";
import { isUuid } from "@/lib/domain/ids";
import { notFound } from "@/lib/domain/refusal";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { getTokenView, revokeToken, revokeTokenSchema } from "@/lib/tokens";

/** POST /api/v1/tokens/{tokenId}/revoke {reason} (admin): the token is a 401 from now on. */
export const POST = apiRoute<{ tokenId: string }>("users.manage", async ({ request, actor, params }) => {
  if (!isUuid(params.tokenId)) throw notFound(`no token ${params.tokenId}`);
  const { data } = await parseJsonBody(request, revokeTokenSchema);
  const { revoked, paused } = await revokeToken(
    { id: params.tokenId.toLowerCase() },
    data.reason,
    changeActorOf(actor),
  );
  const token = await getTokenView(revoked[0]!.id);
  return Response.json({ token, paused });
});
