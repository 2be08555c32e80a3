import { AppShell } from "@/components/app-shell";
import styles from "@/components/record/record.module.css";

/** The record page's frame while the server reads the record, sized like the real one. */
export default function Loading() {
  return (
    <AppShell user={null} current="reviews">
      <div className={styles.page} role="status" aria-busy="true">
        <span className="rc-visually-hidden">Loading the record…</span>
        <div className={styles.skeletonLine} aria-hidden="true" />
        <div className={styles.skeletonHeader} aria-hidden="true" />
        <div className={styles.skeletonBar} aria-hidden="true" />
        <div className={styles.columns} aria-hidden="true">
          <div className={styles.mainColumn}>
            <div className={styles.skeletonBlock} />
          </div>
          <div className={styles.sideColumn}>
            <div className={styles.skeletonBlock} />
          </div>
        </div>
      </div>
    </AppShell>
  );
}
