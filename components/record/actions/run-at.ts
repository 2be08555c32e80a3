// How far away a replay time is, for the preview beside the control. What is typed is read in
// the person's zone (lib/time-zone.ts), and the form shows the instant it means before anything
// is sent.

/** "in 40 min", "in 3 h 5 min", "in 2 d 1 h": how far away an instant is, for the preview. */
export function untilText(iso: string, now: number = Date.now()): string {
  const minutes = Math.round((Date.parse(iso) - now) / 60_000);
  if (minutes < 1) return "now";
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const mins = minutes % 60;
  if (days > 0) return `in ${days} d${hours ? ` ${hours} h` : ""}`;
  if (hours > 0) return `in ${hours} h${mins ? ` ${mins} min` : ""}`;
  return `in ${mins} min`;
}

/** `now` (default: the clock) as an ISO instant: the earliest a replay time control offers. */
export function nowIso(now: number = Date.now()): string {
  return new Date(now).toISOString();
}
