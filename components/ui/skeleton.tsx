import styles from "./ui.module.css";

const WIDTHS = ["72%", "55%", "85%", "64%", "45%", "78%"];

/**
 * Placeholder rows for a table that is loading, the same height as real rows
 * (`--row-height`), so nothing moves when the data arrives. Hidden from assistive technology:
 * announce loading with a status message next to the table instead.
 */
export function SkeletonRows({
  columns,
  rows = 8,
  rowClassName,
}: {
  columns: number;
  rows?: number;
  rowClassName?: string;
}) {
  return (
    <>
      {Array.from({ length: rows }, (_, r) => (
        <tr key={r} aria-hidden="true" className={[styles.skeletonRow, rowClassName ?? ""].join(" ")}>
          {Array.from({ length: columns }, (_, c) => (
            <td key={c}>
              <span className={styles.skeletonBar} style={{ width: WIDTHS[(r + c) % WIDTHS.length] }} />
            </td>
          ))}
        </tr>
      ))}
    </>
  );
}

/** One grey bar, for loading text or chips outside tables (hidden from assistive technology). */
export function SkeletonText({ width = "8ch", height = 10 }: { width?: string; height?: number }) {
  return (
    <span
      aria-hidden="true"
      className={styles.skeletonBar}
      style={{ width, height, display: "inline-block", borderRadius: height > 12 ? 999 : undefined }}
    />
  );
}
