import { changeActorOf } from "@/lib/access";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { issueToken, getTokenView, listTokens, createTokenSchema } from "@/lib/tokens";

/** GET /api/v1/tokens (admin): every API token, working ones first; never the tokens themselves. */
export const GET = apiRoute("users.manage", async () => Response.json({ tokens: await listTokens() }));

/**
 * POST /api/v1/tokens {name, role, expiresInDays, reason} (admin): issues a token. The answer's
 * `secret` is the token, shown this once; only its hash is kept.
 */
export const POST = apiRoute("users.manage", async ({ request, actor }) => {
  const { data } = await parseJsonBody(request, createTokenSchema);
  const issued = await issueToken(
    {
      name: data.name,
      role: data.role,
      expiresInSeconds: data.expiresInDays === null ? null : data.expiresInDays * 86_400,
      reason: data.reason,
      domain: data.domain ?? null,
    },
    changeActorOf(actor),
  );
  const token = await getTokenView(issued.id);
  return Response.json({ secret: issued.token, token }, { status: 201 });
});
