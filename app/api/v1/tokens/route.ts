import * as responses from "@/lib/openapi/responses";
import { ok, error } from "@/lib/openapi/parts";
import { changeActorOf } from "@/lib/access";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { issueToken, getTokenView, listTokens, createTokenSchema } from "@/lib/tokens";

/** GET /api/v1/tokens (admin): every API token, working ones first; never the tokens themselves. */
export const GET = apiRoute(
  {
    method: "GET",
    route: "/api/v1/tokens",
    operationId: "listTokens",
    summary: "Every API token",
    description: "Working ones first; never the tokens themselves.",
    tag: "People and tokens",
    access: { kind: "permission", permission: "users.manage" },
    answers: ok("The tokens.", responses.tokenListSchema),
  },
  async () => Response.json({ tokens: await listTokens() }),
);

/**
 * POST /api/v1/tokens {name, role, expiresInDays, reason} (admin): issues a token. The answer's
 * `secret` is the token, shown this once; only its hash is kept.
 */
export const POST = apiRoute(
  {
    method: "POST",
    route: "/api/v1/tokens",
    operationId: "issueToken",
    summary: "Issue an API token",
    description: "`secret` is the token, shown this once; only its hash is kept.",
    tag: "People and tokens",
    access: { kind: "permission", permission: "users.manage" },
    body: createTokenSchema,
    answers: {
      ...ok("The token and its secret.", responses.tokenIssuedSchema, 201),
      404: error("No such domain (`domain`, ADR 0029)."),
      409: error("A working token has this name (`name-taken`)."),
      422: error("`admin` given with a domain (`global-role`): an admin manages every domain."),
    },
  },
  async ({ request, actor }) => {
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
  },
);
