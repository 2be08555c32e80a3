// The console's one rule for times (docs/decisions/0043-one-time-zone-rule.md): every time a
// person reads or types is in the zone they chose, UTC or their own (an IANA name such as
// `Europe/Berlin`), and says which. The API and the database speak instants (ISO 8601 in UTC);
// only what a person sees and types is in their zone. The zone's rules are the platform's (Intl
// carries the IANA database on the server and in every browser), so the same zone formats the
// same text on both, and a server-rendered row hydrates without a mismatch.

export const UTC = "UTC";

/** The longest IANA name is 32 characters (`America/Argentina/ComodRivadavia`); room to spare. */
const MAX_ZONE_LENGTH = 64;

const formats = new Map<string, Intl.DateTimeFormat>();

/** Numeric parts of an instant's wall clock in `zone`, from a cached formatter per zone. */
function wallClock(ms: number, zone: string): { y: number; mo: number; d: number; h: number; mi: number; s: number } {
  let format = formats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formats.set(zone, format);
  }
  const part: Record<string, number> = {};
  for (const { type, value } of format.formatToParts(ms)) part[type] = Number(value);
  return { y: part.year!, mo: part.month!, d: part.day!, h: part.hour!, mi: part.minute!, s: part.second! };
}

/** Whether `name` is a zone this platform knows (an IANA name, or `UTC`). */
export function isTimeZone(name: string): boolean {
  if (!name || name.length > MAX_ZONE_LENGTH) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The zone as a person reads it after a time: `UTC`, or the IANA name (`America/Los_Angeles`). */
export function zoneLabel(zone: string): string {
  return zone === UTC || zone === "Etc/UTC" ? UTC : zone;
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/**
 * `2026-11-30 03:54:12 UTC`, `2026-11-29 19:54:12 America/Los_Angeles`: an ISO instant in `zone`,
 * the zone named (`zone: false` leaves it off, for a column whose heading names it). Invalid
 * input is returned as it is.
 */
export function formatInstant(
  iso: string,
  zone: string = UTC,
  { seconds = true, withZone = true }: { seconds?: boolean; withZone?: boolean } = {},
): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  const t = wallClock(ms, zone);
  const text = `${pad(t.y, 4)}-${pad(t.mo)}-${pad(t.d)} ${pad(t.h)}:${pad(t.mi)}${seconds ? `:${pad(t.s)}` : ""}`;
  return withZone ? `${text} ${zoneLabel(zone)}` : text;
}

/** Milliseconds `zone`'s wall clock is ahead of UTC at the instant `ms`. */
function offsetAt(ms: number, zone: string): number {
  const t = wallClock(ms, zone);
  return Date.UTC(t.y, t.mo - 1, t.d, t.h, t.mi, t.s) - Math.floor(ms / 1000) * 1000;
}

const DAY_MS = 86_400_000;
const WALL_CLOCK = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;

/**
 * The ISO instant a `datetime-local` value (`YYYY-MM-DDTHH:MM[:SS]`) means in `zone`, or null when
 * it is not one. A control has no zone of its own; this reads it in the person's. A wall-clock
 * time that a daylight-saving change skips is read with the offset before the change (02:30 on a
 * spring-forward night is 03:30); one that occurs twice, as its first occurrence.
 */
export function wallClockToIso(text: string, zone: string = UTC): string | null {
  const match = WALL_CLOCK.exec(text);
  if (!match) return null;
  const [y, mo, d, h, mi, s] = match.slice(1).map((v) => Number(v ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const asUtc = Date.UTC(y, mo - 1, d, h, mi, s);
  const back = new Date(asUtc);
  // Date.UTC rolls 30 February over into March: not a date a person typed.
  if (back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) return null;
  if (zoneLabel(zone) === UTC) return back.toISOString();
  // The zone's offsets a day either side (two when a daylight-saving change is near, else one);
  // an offset fits when the wall clock at the instant it gives is the one typed.
  const before = offsetAt(asUtc - DAY_MS, zone);
  const fitting = [before, offsetAt(asUtc + DAY_MS, zone)]
    .map((offset) => asUtc - offset)
    .filter((ms) => asUtc - ms === offsetAt(ms, zone));
  return new Date(fitting.length ? Math.min(...fitting) : asUtc - before).toISOString();
}

/** `YYYY-MM-DDTHH:MM` of an instant in `zone` (`:SS` too when they are not zero and `seconds`): what a control shows for it. */
export function wallClockOf(iso: string, zone: string = UTC, { seconds = false }: { seconds?: boolean } = {}): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return "";
  const t = wallClock(ms, zone);
  const minutes = `${pad(t.y, 4)}-${pad(t.mo)}-${pad(t.d)}T${pad(t.h)}:${pad(t.mi)}`;
  return seconds && t.s !== 0 ? `${minutes}:${pad(t.s)}` : minutes;
}
