// lib/overview: The overview's counts and charts, and the metrics scrape that reads the same state.
// Its face (docs/decisions/0049-modules-in-order.md): what other code may import of it.

export { scrapeMetrics } from "./metrics";
export {
  arrivals,
  type ArrivalSeries,
  currentState,
  overview,
  type Overview,
  overviewQuerySchema,
  type OverviewWindow,
  resolution,
  windowStart,
} from "./overview";
