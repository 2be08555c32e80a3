import { DataTable, TableMessage } from "@/components/ui/table";
import { formatCount, formatDuration, type Overview } from "./model";

const NONE = "(none)";

/** Time to resolution per cause: the median and the 95th percentile, as text (no chart needed). */
export function ResolutionTable({ resolution }: { resolution: Overview["resolution"] }) {
  return (
    <DataTable caption="Time from first sighting to resolved or cancelled, per cause (kind, reason, error class).">
      <thead>
        <tr>
          <th scope="col">Kind</th>
          <th scope="col">Reason</th>
          <th scope="col">Error class</th>
          <th scope="col">Finished</th>
          <th scope="col">p50</th>
          <th scope="col">p95</th>
        </tr>
      </thead>
      <tbody>
        {resolution.causes.length === 0 ? (
          <TableMessage colSpan={6}>No record was resolved or cancelled in this window.</TableMessage>
        ) : (
          resolution.causes.map((cause) => (
            <tr key={`${cause.kind ?? ""}\u0000${cause.reason}\u0000${cause.errorClass ?? ""}`}>
              <td>{cause.kind ?? NONE}</td>
              <td>{cause.reason}</td>
              <td>{cause.errorClass ?? NONE}</td>
              <td>{formatCount(cause.finished)}</td>
              <td title={`${cause.p50Seconds} s`}>{formatDuration(cause.p50Seconds)}</td>
              <td title={`${cause.p95Seconds} s`}>{formatDuration(cause.p95Seconds)}</td>
            </tr>
          ))
        )}
      </tbody>
    </DataTable>
  );
}
