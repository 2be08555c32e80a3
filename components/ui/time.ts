// Ages (how long ago), the same text on the server and in the browser. Times of day are in the
// person's zone: components/ui/time-zone.tsx.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** A short human age: "45 s", "12 min", "3 h", "2 d" (days keep counting; no months). */
export function formatAge(ms: number): string {
  const span = Math.max(0, ms);
  if (span < MINUTE) return `${Math.floor(span / SECOND)} s`;
  if (span < HOUR) return `${Math.floor(span / MINUTE)} min`;
  if (span < DAY) return `${Math.floor(span / HOUR)} h`;
  return `${Math.floor(span / DAY)} d`;
}
