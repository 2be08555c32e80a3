import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import styles from "./record.module.css";
import type { ReviewDetail } from "./types";

/** "Ready: predecessor applied" for a held gap whose missing predecessors have since been applied. */
export function RecordReadyBadge({ record }: { record: ReviewDetail }) {
  if (record.ready !== true) return null;
  return <Badge tone="success">Ready: predecessor applied</Badge>;
}

/** "Part of operation <link> (<item state>)", once per bulk operation the record belongs to. */
export function RecordOperations({ record }: { record: ReviewDetail }) {
  const operations = Array.isArray(record.operations) ? record.operations : [];
  if (operations.length === 0) return null;
  return (
    <ul className={styles.operationRefs} aria-label="Bulk operations">
      {operations.map((op) => (
        <li key={op.operationId}>
          Part of operation{" "}
          <Link href={`/operations/${encodeURIComponent(op.operationId)}`} prefetch={false}>
            {op.action} <code className={styles.code}>{op.operationId.slice(0, 8)}</code>
          </Link>{" "}
          ({op.itemState}
          <span className="rc-muted">; the operation is {op.operationState}</span>)
        </li>
      ))}
    </ul>
  );
}
