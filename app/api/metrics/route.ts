import { z } from "zod";
import { apiRoute } from "@/lib/http/route";
import { scrapeMetrics } from "@/lib/overview";

/** Prometheus text for any valid token (docs/api.md, "Operations"; docs/decisions/0016-metrics.md). */
export const GET = apiRoute(
  {
    method: "GET",
    route: "/api/metrics",
    operationId: "getMetrics",
    summary: "Prometheus metrics",
    description:
      "Open records by category and reason, oldest open age, actions by type, replays by outcome, request durations. " +
      "Counts of every domain: a token or person scoped to domains gets 403 (ADR 0030).",
    tag: "Service",
    access: { kind: "permission", permission: "metrics.read" },
    answers: {
      200: {
        description: "The Prometheus text exposition format (`text/plain; version=0.0.4`).",
        content: { "text/plain": z.string() },
      },
    },
  },
  async () => {
    const { text, contentType } = await scrapeMetrics();
    return new Response(text, { headers: { "content-type": contentType } });
  },
);
