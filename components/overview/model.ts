import type { ArrivalSeries, Overview, OverviewWindow } from "@/lib/overview";
import { UTC, wallClockOf, zoneLabel } from "@/lib/time-zone";

// The overview's view of the API (GET /api/v1/overview, docs/api.md). Only types come from lib/,
// and the pure time-zone rule, so no server code reaches the browser bundle.

export type { ArrivalSeries, Overview, OverviewWindow };
export type ArrivalDimension = "byCategory" | "byReason" | "byKind";

export const WINDOWS: { value: OverviewWindow; label: string; long: string }[] = [
  { value: "24h", label: "24 hours", long: "the last 24 hours, by hour" },
  { value: "7d", label: "7 days", long: "the last 7 days, by day" },
  { value: "30d", label: "30 days", long: "the last 30 days, by day" },
];

export const DIMENSIONS: { value: ArrivalDimension; label: string; noun: string }[] = [
  { value: "byCategory", label: "Category", noun: "category" },
  { value: "byReason", label: "Reason", noun: "reason" },
  { value: "byKind", label: "Kind", noun: "kind" },
];

export function isWindow(value: string | null | undefined): value is OverviewWindow {
  return WINDOWS.some((w) => w.value === value);
}

/** Series a chart draws one by one; the rest are summed into "other". */
export const MAX_SERIES = 6;
export const OTHER = "other";

/** The largest series of a dimension, and the rest summed as "other" (the API sorts largest first). */
export function topSeries(series: ArrivalSeries[], bucketCount: number): ArrivalSeries[] {
  if (series.length <= MAX_SERIES + 1) return series;
  const rest = series.slice(MAX_SERIES);
  const counts = Array.from({ length: bucketCount }, (_, i) => rest.reduce((sum, s) => sum + (s.counts[i] ?? 0), 0));
  return [
    ...series.slice(0, MAX_SERIES),
    { key: `${OTHER} (${rest.length})`, counts, total: counts.reduce((a, b) => a + b, 0) },
  ];
}

const numberFormat = new Intl.NumberFormat("en-US");
export const formatCount = (n: number) => numberFormat.format(n);

/**
 * A bucket's label: `12-01 06:00` (an hour, in the person's zone) or `2026-12-01` (a day, a UTC
 * day: the counts are kept per UTC day, so their days are named in UTC, bucketZone).
 */
export function bucketLabel(iso: string, bucket: "hour" | "day", zone: string): string {
  if (bucket === "hour") return wallClockOf(iso, zone).slice(5).replace("T", " ");
  return new Date(iso).toISOString().slice(0, 10);
}

/** The zone a bucket is read in: an hour in the person's, a day in UTC (the days the counts keep). */
export function bucketZone(bucket: "hour" | "day", zone: string): string {
  return bucket === "hour" ? zoneLabel(zone) : UTC;
}

/** A duration for people: "45 s", "12 min", "3 h 20 min", "2 d 4 h". */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86_400) {
    const minutes = Math.floor((s % 3600) / 60);
    return `${Math.floor(s / 3600)} h${minutes ? ` ${minutes} min` : ""}`;
  }
  const hours = Math.floor((s % 86_400) / 3600);
  return `${Math.floor(s / 86_400)} d${hours ? ` ${hours} h` : ""}`;
}

/** The chart's text alternative: what it shows, in one sentence a screen reader reads. */
export function arrivalsSummary(overview: Overview, dimension: ArrivalDimension): string {
  const window = WINDOWS.find((w) => w.value === overview.window)?.long ?? overview.window;
  const noun = DIMENSIONS.find((d) => d.value === dimension)?.noun ?? "";
  const parts = overview.arrivals[dimension].map((s) => `${s.key} ${formatCount(s.total)}`);
  return (
    `Records arriving in ${window}, by ${noun}: ${formatCount(overview.arrivals.total)} in all` +
    (parts.length ? `; ${parts.join(", ")}.` : ".")
  );
}
