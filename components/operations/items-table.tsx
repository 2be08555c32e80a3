import Link from "next/link";
import { StatusBadge } from "@/components/ui/review-badges";
import { DataTable } from "@/components/ui/table";
import { Time, ZonedHeading } from "@/components/ui/time-zone";
import type { OperationItemView } from "@/lib/operations/client";
import { ItemStateBadge, VerdictBadge } from "./operation-badges";

/** The records of an operation, one row each, in dispatch order; each links to its record. */
export function ItemsTable({ items, caption }: { items: OperationItemView[]; caption: string }) {
  return (
    <DataTable caption={caption}>
      <thead>
        <tr>
          <th scope="col" className="rc-num">
            #
          </th>
          <th scope="col">Record</th>
          <th scope="col">Sequence</th>
          <th scope="col">Record status</th>
          <th scope="col">Verdict</th>
          <th scope="col">State</th>
          <th scope="col">Detail</th>
          <th scope="col">
            <ZonedHeading>Updated</ZonedHeading>
          </th>
        </tr>
      </thead>
      <tbody>
        {items.map((item) => (
          <tr key={item.position}>
            <td className="rc-num">{item.position}</td>
            <td>
              <Link href={`/reviews/${encodeURIComponent(item.reviewId)}`} prefetch={false} className="rc-mono">
                {item.record.messageId ?? item.reviewId}
              </Link>
              <div className="rc-muted">
                {item.record.kind ?? "no kind"} · {item.record.reason}
              </div>
            </td>
            <td className="rc-mono">
              {item.sequenceKey === null ? "—" : `${item.sequenceKey}#${item.sequence ?? "?"}`}
            </td>
            <td>
              <StatusBadge status={item.record.status} />
            </td>
            <td>
              {item.verdict ? <VerdictBadge verdict={item.verdict} /> : <span className="rc-muted">—</span>}
              {item.verdictDetail ? <div className="rc-muted">{item.verdictDetail}</div> : null}
            </td>
            <td>
              <ItemStateBadge state={item.state} />
            </td>
            <td>{item.detail ?? <span className="rc-muted">—</span>}</td>
            <td className="rc-mono rc-nowrap">
              <Time iso={item.updatedAt} withZone={false} />
            </td>
          </tr>
        ))}
      </tbody>
    </DataTable>
  );
}
