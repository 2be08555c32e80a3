import { databaseAnswers } from "@/lib/db/answers";
import { DATABASE_RETRY_AFTER_SECONDS } from "@/lib/http/refusal-response";
import { documented } from "@/lib/http/route";
import { json } from "@/lib/openapi/parts";
import * as responses from "@/lib/openapi/responses";

export const dynamic = "force-dynamic";

export const GET = documented(
  {
    method: "GET",
    route: "/api/health",
    operationId: "getHealth",
    summary: "Whether the console can answer",
    tag: "Service",
    access: { kind: "public" },
    answers: {
      200: { description: "The database answers.", content: json(responses.healthSchema) },
      503: { description: "The database does not answer.", content: json(responses.healthSchema) },
    },
  },
  async (): Promise<Response> => {
    if (await databaseAnswers()) return Response.json({ status: "ok" });
    return Response.json(
      { status: "unavailable", error: "the database does not answer" },
      { status: 503, headers: { "retry-after": String(DATABASE_RETRY_AFTER_SECONDS) } },
    );
  },
);
