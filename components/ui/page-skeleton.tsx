import { SkeletonRows } from "./skeleton";
import styles from "./ui.module.css";

/**
 * A neutral placeholder for a whole page while the server renders it (a route's loading.tsx):
 * a title line, a toolbar and table rows. `label` is announced to screen readers.
 */
export function PageSkeleton({ label, columns = 8 }: { label: string; columns?: number }) {
  return (
    <div className={styles.pageSkeleton} role="status">
      <span className="rc-visually-hidden">{label}</span>
      <span className={styles.skeletonBar} style={{ width: 220, height: 18 }} aria-hidden="true" />
      <span className={styles.pageSkeletonBlock} aria-hidden="true" />
      <table className={styles.pageSkeletonTable} aria-hidden="true">
        <tbody>
          <SkeletonRows columns={columns} rows={12} />
        </tbody>
      </table>
    </div>
  );
}
