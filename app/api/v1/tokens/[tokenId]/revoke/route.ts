import * as responses from "@/lib/openapi/responses";
import { tokenIdParams, ok, error } from "@/lib/openapi/parts";
import { changeActorOf } from "@/lib/access";
import { isUuid } from "@/lib/domain/ids";
import { notFound } from "@/lib/domain/refusal";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { getTokenView, revokeToken, revokeTokenSchema } from "@/lib/tokens";

/** POST /api/v1/tokens/{tokenId}/revoke {reason} (admin): the token is a 401 from now on. */
export const POST = apiRoute<{ tokenId: string }>(
  {
    method: "POST",
    route: "/api/v1/tokens/[tokenId]/revoke",
    operationId: "revokeToken",
    summary: "Revoke an API token",
    description: "The token is a 401 from now on; what ran on its authority pauses.",
    tag: "People and tokens",
    access: { kind: "permission", permission: "users.manage" },
    params: tokenIdParams,
    body: revokeTokenSchema,
    answers: {
      ...ok("The token and what paused.", responses.tokenRevokedSchema),
      404: error("No token with this id."),
      409: error("Already revoked (`already-revoked`)."),
    },
  },
  async ({ request, actor, params }) => {
    if (!isUuid(params.tokenId)) throw notFound(`no token ${params.tokenId}`);
    const { data } = await parseJsonBody(request, revokeTokenSchema);
    const { revoked, paused } = await revokeToken(
      { id: params.tokenId.toLowerCase() },
      data.reason,
      changeActorOf(actor),
    );
    const token = await getTokenView(revoked[0]!.id);
    return Response.json({ token, paused });
  },
);
