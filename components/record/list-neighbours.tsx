"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { usePlaceInList } from "@/components/queue/list-memory";
import { useShortcuts } from "@/components/queue/row-keys";
import styles from "./record.module.css";

/**
 * Previous and next within the list the record was opened from (the queue remembers it for the
 * tab), and the way back to that list with its filters. Shows nothing for a record opened
 * otherwise. `[` and `]` step, as j/k step through the queue's rows.
 */
export function ListNeighbours({ id }: { id: string }) {
  const router = useRouter();
  const place = usePlaceInList(id);
  const go = (to: string | null | undefined) => {
    if (!to) return false; // nothing there: the key stays the browser's
    router.push(`/reviews/${to}`);
  };
  useShortcuts({ "[": () => go(place?.previous), "]": () => go(place?.next) });
  if (!place) return null;
  return (
    <nav className={styles.neighbours} aria-label="Records of the list">
      <Link href={place.href}>Back to the list</Link>
      <span className="rc-muted">
        {place.position} of {place.total}
      </span>
      {place.previous ? (
        <Link href={`/reviews/${place.previous}`} rel="prev" aria-keyshortcuts="[">
          ← Previous
        </Link>
      ) : (
        <span className="rc-muted">← Previous</span>
      )}
      {place.next ? (
        <Link href={`/reviews/${place.next}`} rel="next" aria-keyshortcuts="]">
          Next →
        </Link>
      ) : (
        <span className="rc-muted">Next →</span>
      )}
    </nav>
  );
}
