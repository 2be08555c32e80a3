import { apiRoute } from "@/lib/http/route";
import { createMetricsRegistry } from "@/lib/metrics/registry";

/** Prometheus text for any valid token (API.md, "Operations"). */
export const GET = apiRoute("metrics.read", async () => {
  const registry = createMetricsRegistry();
  return new Response(await registry.metrics(), { headers: { "content-type": registry.contentType } });
});
