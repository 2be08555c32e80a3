// Deterministic time formatting: the same text on the server and in the browser (no locale or
// time zone of the machine involved), so server-rendered rows hydrate without a mismatch.

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

/** `2026-11-30 03:54:12 UTC` from an ISO timestamp (invalid input is returned as it is). */
export function formatUtc(iso: string, { seconds = true }: { seconds?: boolean } = {}): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const text = date.toISOString();
  return `${text.slice(0, 10)} ${text.slice(11, seconds ? 19 : 16)} UTC`;
}

/**
 * The age of `since` at `now`, as a `<time>` element whose tooltip is the exact UTC time.
 * Pass `now` from `useNow` so every age on the page ticks together.
 */
export function Age({ since, now }: { since: string; now: number }) {
  const time = new Date(since).getTime();
  return (
    <time dateTime={since} title={formatUtc(since)}>
      {Number.isNaN(time) ? "–" : formatAge(now - time)}
    </time>
  );
}
