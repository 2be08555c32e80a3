// The replay time a person types (replay "at a time", reschedule), in UTC like every other time
// on the page. A `datetime-local`
// control has no zone of its own: its `YYYY-MM-DDTHH:MM` is read here as UTC, never as the
// browser's local time, and the form shows the instant it means before anything is sent.

const INPUT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/;

/** The ISO instant of a `datetime-local` value read as UTC, or null when it is not one. */
export function utcInputToIso(text: string): string | null {
  if (!INPUT.test(text)) return null;
  const ms = Date.parse(`${text}:00Z`);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/** `YYYY-MM-DDTHH:MM` of an instant in UTC: what a control shows for it (a reschedule starts at the due time). */
export function utcInputOf(iso: string): string {
  return new Date(iso).toISOString().slice(0, 16);
}

/** `YYYY-MM-DDTHH:MM` of `now` in UTC: the control's `min`. */
export function utcInputNow(now: number = Date.now()): string {
  return utcInputOf(new Date(now).toISOString());
}

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
