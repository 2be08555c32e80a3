"use client";

import "uplot/dist/uPlot.min.css";
import { useEffect, useRef, useState } from "react";
import type uPlot from "uplot";
import { useTimes } from "@/components/ui/time-zone";
import { useColorScheme } from "@/components/ui/use-color-scheme";
import { type ArrivalSeries, bucketLabel, bucketZone, formatCount } from "./model";
import styles from "./overview.module.css";

/**
 * Colours of the series, in order (the table alternative names them; colour is never the only
 * cue). Chosen to stay apart for the common colour-vision deficiencies (Okabe-Ito), and each at
 * >= 3:1 on the light and on the dark background, so they serve both schemes.
 */
export const SERIES_COLOURS = ["#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#6b6b6b"];

const HEIGHT = 240;

/**
 * Arrivals per bucket as steps (a count holds for its whole hour or day; a sloped line between two
 * buckets would show counts nobody measured), drawn by uPlot on a canvas
 * (docs/decisions/0026-overview-and-charts.md). Pointing at it shows that bucket's counts below it.
 * uPlot needs `window` and a canvas, so it is imported in the browser only, after the first
 * render; until then (and if it fails) the box keeps its height and the table below carries the
 * numbers. The box is an image for assistive technology, named by `summary`. A canvas takes no
 * CSS, so the axes' colours are read from the tokens when drawing, and the chart is drawn again
 * when the system's colour scheme changes.
 */
export function ArrivalsChart({
  buckets,
  bucket,
  series,
  summary,
}: {
  buckets: string[];
  bucket: "hour" | "day";
  series: ArrivalSeries[];
  summary: string;
}) {
  const { zone } = useTimes();
  const scheme = useColorScheme();
  const box = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState(false);
  /** The bucket under the pointer, whose counts the readout shows. */
  const [pointed, setPointed] = useState<number | null>(null);

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    let plot: uPlot | null = null;
    let observer: ResizeObserver | null = null;
    let cancelled = false;
    (async () => {
      const { default: UPlot } = await import("uplot");
      if (cancelled) return;
      const starts = buckets.map((start) => Date.parse(start) / 1000);
      const step = bucket === "hour" ? 3600 : 86_400;
      const tokens = getComputedStyle(element);
      const axisColour = tokens.getPropertyValue("--chart-axis").trim();
      const lines = { stroke: tokens.getPropertyValue("--chart-grid").trim() };
      const axis = { stroke: axisColour, grid: lines, ticks: lines };
      const options: uPlot.Options = {
        width: Math.max(200, element.clientWidth),
        height: HEIGHT,
        // Hours in the person's zone, days as the UTC days the counts keep (model.ts bucketZone).
        tzDate: (seconds) => UPlot.tzDate(new Date(seconds * 1000), bucketZone(bucket, zone)),
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        // The bucket whose step is under the pointer (not the nearest point: a step holds its
        // count from its start to the next).
        hooks: {
          setCursor: [
            (u) => {
              const left = u.cursor.left;
              const i = left == null || left < 0 ? -1 : Math.floor((u.posToVal(left, "x") - starts[0]!) / step);
              setPointed(i >= 0 && i < starts.length ? i : null);
            },
          ],
        },
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
        axes: [
          { ...axis, values: bucket === "hour" ? "{HH}:{mm}" : "{MMM} {D}" },
          { ...axis, values: (_u, ticks) => ticks.map((t) => (Number.isInteger(t) ? String(t) : "")) },
        ],
        series: [
          {},
          ...series.map((s, i) => ({
            label: s.key,
            stroke: SERIES_COLOURS[i % SERIES_COLOURS.length],
            width: 2,
            paths: UPlot.paths.stepped!({ align: 1 }),
            points: { show: false },
          })),
        ],
      };
      // One more point at the end of the last bucket, so its step has its width too.
      const end = (starts.at(-1) ?? 0) + step;
      const data: uPlot.AlignedData = [[...starts, end], ...series.map((s) => [...s.counts, s.counts.at(-1) ?? 0])];
      plot = new UPlot(options, data, element);
      observer = new ResizeObserver(() => plot?.setSize({ width: Math.max(200, element.clientWidth), height: HEIGHT }));
      observer.observe(element);
    })().catch(() => {
      if (!cancelled) setFailed(true);
    });
    return () => {
      cancelled = true;
      observer?.disconnect();
      plot?.destroy();
    };
  }, [buckets, bucket, series, zone, scheme]);

  return (
    <div className={styles.chartFrame}>
      <div ref={box} className={styles.chart} role="img" aria-label={summary} data-testid="arrivals-chart" />
      {failed ? (
        <p className={styles.chartFailed}>The chart could not be drawn; the table below has its numbers.</p>
      ) : null}
      {/* For the pointer; the table below gives every bucket's counts to everyone. */}
      <p className={styles.readout} aria-hidden="true" data-testid="arrivals-readout">
        {pointed !== null && buckets[pointed]
          ? `${bucketLabel(buckets[pointed], bucket, zone)} (${bucketZone(bucket, zone)}): ` +
            series.map((s) => `${s.key} ${formatCount(s.counts[pointed] ?? 0)}`).join(" · ")
          : "Point at the chart for a bucket's counts."}
      </p>
      <ul className={styles.legend} aria-hidden="true">
        {series.map((s, i) => (
          <li key={s.key}>
            <span className={styles.swatch} data-colour={i % SERIES_COLOURS.length} />
            {s.key}
          </li>
        ))}
      </ul>
    </div>
  );
}
