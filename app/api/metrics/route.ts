import { apiRoute } from "@/lib/http/route";
import { scrapeMetrics } from "@/lib/overview";

/** Prometheus text for any valid token (docs/api.md, "Operations"; docs/decisions/0016-metrics.md). */
export const GET = apiRoute("metrics.read", async () => {
  const { text, contentType } = await scrapeMetrics();
  return new Response(text, { headers: { "content-type": contentType } });
});
