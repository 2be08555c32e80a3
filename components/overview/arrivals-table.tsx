import { DataTable } from "@/components/ui/table";
import { useTimes } from "@/components/ui/time-zone";
import { type ArrivalSeries, bucketLabel, bucketZone, formatCount } from "./model";

/**
 * The arrivals chart's numbers as a table: a row per bucket (hours in the person's zone, UTC days), a column per series and the
 * bucket's total. The chart is a canvas; this is what screen readers and copy-paste get.
 */
export function ArrivalsTable({
  caption,
  buckets,
  bucket,
  series,
}: {
  caption: string;
  buckets: string[];
  bucket: "hour" | "day";
  series: ArrivalSeries[];
}) {
  const { zone } = useTimes();
  return (
    <DataTable caption={caption} compact>
      <thead>
        <tr>
          <th scope="col">{`${bucket === "hour" ? "Hour" : "Day"} (${bucketZone(bucket, zone)})`}</th>
          {series.map((s) => (
            <th scope="col" key={s.key}>
              {s.key}
            </th>
          ))}
          <th scope="col">Total</th>
        </tr>
      </thead>
      <tbody>
        {buckets.map((start, i) => (
          <tr key={start}>
            <th scope="row">
              <time dateTime={start}>{bucketLabel(start, bucket, zone)}</time>
            </th>
            {series.map((s) => (
              <td key={s.key}>{formatCount(s.counts[i] ?? 0)}</td>
            ))}
            <td>{formatCount(series.reduce((sum, s) => sum + (s.counts[i] ?? 0), 0))}</td>
          </tr>
        ))}
      </tbody>
      <tfoot>
        <tr>
          <th scope="row">All</th>
          {series.map((s) => (
            <td key={s.key}>{formatCount(s.total)}</td>
          ))}
          <td>{formatCount(series.reduce((sum, s) => sum + s.total, 0))}</td>
        </tr>
      </tfoot>
    </DataTable>
  );
}
