import * as responses from "@/lib/openapi/responses";
import { ok } from "@/lib/openapi/parts";
import { grantsOf } from "@/lib/access";
import { apiRoute } from "@/lib/http/route";
import { listAutoReplaySettings } from "@/lib/actions";

/** GET /api/v1/operations/auto-replay: per kind, whether ready gap records replay by themselves. */
export const GET = apiRoute(
  {
    method: "GET",
    route: "/api/v1/operations/auto-replay",
    operationId: "listAutoReplay",
    summary: "Automatic replay of ready records, per kind",
    tag: "Operations",
    access: { kind: "permission", permission: "operations.read" },
    answers: ok("Every known kind and every kind with a setting.", responses.autoReplayListSchema),
  },
  async ({ actor }) => {
    return Response.json({ kinds: await listAutoReplaySettings(grantsOf(actor)) });
  },
);
