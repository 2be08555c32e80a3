import { Button } from "@/components/ui/button";
import { DataTable } from "@/components/ui/table";
import { type DryRun, type Verdict, VERDICTS } from "@/lib/operations/client";
import { formatCount, VERDICT_MEANING } from "./model";
import { VerdictBadge } from "./operation-badges";
import styles from "./operations.module.css";

/** The dry run's verdicts with a count, in the order of docs/operations.md (unknown ones last). */
export function verdictCounts(dryRun: DryRun): [Verdict, number][] {
  const counts = dryRun.counts as Record<string, number | undefined>;
  const known = VERDICTS.filter((v) => (counts[v] ?? 0) > 0);
  const other = Object.keys(counts).filter((v) => !(VERDICTS as readonly string[]).includes(v) && (counts[v] ?? 0) > 0);
  return [...known, ...(other as Verdict[])].map((v) => [v, counts[v] ?? 0]);
}

/**
 * What the dry run says about the records: one row per verdict. With `onDrill`, each count is a
 * button that lists those records (`drilled` is the verdict listed now).
 */
export function DryRunTable({
  dryRun,
  caption,
  drilled,
  drillId,
  onDrill,
}: {
  dryRun: DryRun;
  caption: string;
  drilled?: Verdict | null;
  /** The id of the list the buttons open (aria-controls). */
  drillId?: string;
  onDrill?: (verdict: Verdict) => void;
}) {
  const rows = verdictCounts(dryRun);
  const total = rows.reduce((sum, [, n]) => sum + n, 0);
  return (
    <DataTable caption={caption}>
      <thead>
        <tr>
          <th scope="col">Verdict</th>
          <th scope="col">Meaning</th>
          <th scope="col" className="rc-num">
            Records
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map(([verdict, count]) => (
          <tr key={verdict}>
            <td className="rc-nowrap">
              <VerdictBadge verdict={verdict} />
            </td>
            <td>{VERDICT_MEANING[verdict] ?? ""}</td>
            <td className="rc-num">
              {onDrill ? (
                <Button
                  size="sm"
                  variant={drilled === verdict ? "default" : "subtle"}
                  className={styles.countButton}
                  aria-expanded={drilled === verdict}
                  aria-controls={drilled === verdict ? drillId : undefined}
                  aria-label={`${drilled === verdict ? "Hide" : "List"} the records with the verdict ${verdict} (${formatCount(count)})`}
                  onClick={() => onDrill(verdict)}
                >
                  {formatCount(count)}
                </Button>
              ) : (
                formatCount(count)
              )}
            </td>
          </tr>
        ))}
      </tbody>
      <tfoot>
        <tr>
          <th scope="row" colSpan={2}>
            Total
          </th>
          <td className="rc-num">{formatCount(total)}</td>
        </tr>
      </tfoot>
    </DataTable>
  );
}
