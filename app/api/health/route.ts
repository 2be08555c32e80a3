import { databaseAnswers } from "@/lib/db/answers";
import { DATABASE_RETRY_AFTER_SECONDS } from "@/lib/http/refusal-response";

export const dynamic = "force-dynamic";

export async function GET(): Promise<Response> {
  if (await databaseAnswers()) return Response.json({ status: "ok" });
  return Response.json(
    { status: "unavailable", error: "the database does not answer" },
    { status: 503, headers: { "retry-after": String(DATABASE_RETRY_AFTER_SECONDS) } },
  );
}
