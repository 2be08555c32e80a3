import { db } from "@/lib/db/client";
import { DATABASE_RETRY_AFTER_SECONDS } from "@/lib/http/refusal-response";

export const dynamic = "force-dynamic";

export async function GET(): Promise<Response> {
  try {
    await db().$queryRaw`SELECT 1`;
    return Response.json({ status: "ok" });
  } catch {
    return Response.json(
      { status: "unavailable", error: "the database does not answer" },
      { status: 503, headers: { "retry-after": String(DATABASE_RETRY_AFTER_SECONDS) } },
    );
  }
}
