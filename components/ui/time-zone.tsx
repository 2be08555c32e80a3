"use client";

import { createContext, type ReactNode, useContext, useMemo, useState } from "react";
import { formatInstant, UTC, wallClockOf, wallClockToIso, zoneLabel } from "@/lib/time-zone";
import { formatAge } from "./time";

// The zone the signed-in person reads and types times in (lib/time-zone.ts): the app shell
// provides the one kept with their account; every time on a page comes through here.

interface TimeZoneState {
  zone: string;
  /** After the person's choice is saved: every time on the page follows at once. */
  setZone: (zone: string) => void;
}

const TimeZoneContext = createContext<TimeZoneState>({ zone: UTC, setZone: () => {} });

export function TimeZoneProvider({ zone: initial, children }: { zone: string; children: ReactNode }) {
  const [zone, setZone] = useState(initial);
  const value = useMemo(() => ({ zone, setZone }), [zone]);
  return <TimeZoneContext.Provider value={value}>{children}</TimeZoneContext.Provider>;
}

export interface Times {
  /** The zone's IANA name, or `UTC`. */
  zone: string;
  /** How the zone is named after a time and in a column's heading: `UTC`, `Europe/Berlin`. */
  label: string;
  setZone: (zone: string) => void;
  /** An instant as text in the zone, the zone named unless `withZone: false` (a column whose heading names it). */
  format: (iso: string, options?: { seconds?: boolean; withZone?: boolean }) => string;
  /** The time of day of a moment (`Date.now()`-like ms), `14:03:09 UTC`: when a live view last updated. */
  clock: (ms: number) => string;
  /** A `datetime-local` value read in the zone: the instant, or null when it is not a time. */
  fromInput: (text: string) => string | null;
  /** What a `datetime-local` control shows for an instant in the zone. */
  toInput: (iso: string, options?: { seconds?: boolean }) => string;
}

/** The person's zone and what reads and writes times in it. */
export function useTimes(): Times {
  const { zone, setZone } = useContext(TimeZoneContext);
  return useMemo(
    () => ({
      zone,
      label: zoneLabel(zone),
      setZone,
      format: (iso, options) => formatInstant(iso, zone, options),
      clock: (ms) => formatInstant(new Date(ms).toISOString(), zone).slice(11),
      fromInput: (text) => wallClockToIso(text, zone),
      toInput: (iso, options) => wallClockOf(iso, zone, options),
    }),
    [zone, setZone],
  );
}

/** An instant as a `<time>` element, in the person's zone and naming it; its tooltip is the instant in UTC. */
export function Time({
  iso,
  seconds = true,
  withZone = true,
}: {
  iso: string | null | undefined;
  seconds?: boolean;
  withZone?: boolean;
}) {
  const { format } = useTimes();
  if (!iso) return <span>—</span>;
  return (
    <time dateTime={iso} title={formatInstant(iso)}>
      {format(iso, { seconds, withZone })}
    </time>
  );
}

/**
 * The age of `since` at `now`, as a `<time>` element whose tooltip is the exact time in the
 * person's zone. Pass `now` from `useNow` so every age on the page ticks together.
 */
export function Age({ since, now }: { since: string; now: number }) {
  const { format } = useTimes();
  const time = new Date(since).getTime();
  return (
    <time dateTime={since} title={format(since)}>
      {Number.isNaN(time) ? "–" : formatAge(now - time)}
    </time>
  );
}

/** A column heading that names the zone of the times below it: "Time (Europe/Berlin)". */
export function ZonedHeading({ children }: { children: ReactNode }) {
  const { label } = useTimes();
  return (
    <>
      {children} ({label})
    </>
  );
}
