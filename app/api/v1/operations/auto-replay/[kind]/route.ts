import * as responses from "@/lib/openapi/responses";
import { kindParams, ok, error } from "@/lib/openapi/parts";
import { invalidField } from "@/lib/domain/refusal";
import { apiRoute, parseJsonBody } from "@/lib/http/route";
import { setAutoReplay } from "@/lib/actions";
import { autoReplaySwitchSchema } from "@/lib/operations";

const noNul = (s: string) => !s.includes("\u0000");

function kindParam(raw: string | undefined): string {
  let kind: string;
  try {
    kind = decodeURIComponent(raw ?? "");
  } catch {
    throw invalidField("kind", "is not a valid URL-encoded name");
  }
  const problem =
    kind.length < 1 || kind.length > 200
      ? "must have 1 to 200 characters"
      : noNul(kind)
        ? null
        : "must not contain NUL characters";
  if (problem) throw invalidField("kind", problem);
  return kind;
}

/** PUT /api/v1/operations/auto-replay/{kind} {enabled, reason} (owner): the kind's setting. */
export const PUT = apiRoute<{ kind: string }>(
  {
    method: "PUT",
    route: "/api/v1/operations/auto-replay/[kind]",
    operationId: "setAutoReplay",
    summary: "Turn automatic replay of a kind on or off",
    tag: "Operations",
    access: { kind: "permission", permission: "reviews.resolve" },
    params: kindParams,
    body: autoReplaySwitchSchema,
    answers: { ...ok("The kind's setting as it now is.", responses.kindAutoReplaySchema), 404: error("No such kind.") },
  },
  async ({ request, actor, params }) => {
    const kind = kindParam(params.kind);
    const { data } = await parseJsonBody(request, autoReplaySwitchSchema);
    return Response.json(await setAutoReplay(kind, data.enabled, data.reason, actor));
  },
);
