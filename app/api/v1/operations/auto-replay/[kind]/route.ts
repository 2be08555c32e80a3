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
export const PUT = apiRoute<{ kind: string }>("reviews.resolve", async ({ request, actor, params }) => {
  const kind = kindParam(params.kind);
  const { data } = await parseJsonBody(request, autoReplaySwitchSchema);
  return Response.json(await setAutoReplay(kind, data.enabled, data.reason, actor));
});
