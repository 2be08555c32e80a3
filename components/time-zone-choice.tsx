"use client";

import { useId, useState, useSyncExternalStore } from "react";
import { Select } from "@/components/ui/field";
import { useTimes } from "@/components/ui/time-zone";
import { apiPut } from "@/lib/client/api";
import { UTC } from "@/lib/time-zone";

const noSubscription = () => () => {};
/** The browser's zone; null while rendering on the server, which cannot know it. */
function useBrowserZone(): string | null {
  return useSyncExternalStore(
    noSubscription,
    () => Intl.DateTimeFormat().resolvedOptions().timeZone || null,
    () => null,
  );
}

/** False in the server's HTML and until React has hydrated it, true after. */
function useHydrated(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}

/**
 * The header's choice of the zone every time is shown and typed in: UTC, or this browser's own
 * zone. Kept with the person's account (PUT /api/v1/me/preferences), so it holds on every page,
 * after a reload and on another device; the page follows at once (the shell's TimeZoneProvider).
 */
export function TimeZoneChoice() {
  const id = useId();
  const { zone, setZone } = useTimes();
  const browserZone = useBrowserZone();
  // Until hydrated a choice would change the select but reach no handler, and the page would
  // keep the old zone: the control is disabled until it can act.
  const hydrated = useHydrated();
  const [saving, setSaving] = useState(false);
  const [failed, setFailed] = useState(false);
  // UTC, the zone kept (a person who chose Berlin and now travels keeps seeing it offered), and this browser's.
  const zones = [...new Set([UTC, zone, ...(browserZone ? [browserZone] : [])])];

  async function choose(next: string) {
    setSaving(true);
    setFailed(false);
    try {
      const answer = await apiPut<{ preferences: { timeZone: string } }>("/api/v1/me/preferences", { timeZone: next });
      setZone(answer.preferences.timeZone);
    } catch {
      setFailed(true);
    } finally {
      setSaving(false);
    }
  }

  return (
    <span className="rc-shell-zone">
      <label className="rc-visually-hidden" htmlFor={id}>
        Show times in
      </label>
      <Select
        id={id}
        value={zone}
        disabled={saving || !hydrated}
        title="The zone every time on these pages is shown and typed in"
        aria-describedby={failed ? `${id}-failed` : undefined}
        onChange={(event) => void choose(event.target.value)}
      >
        {zones.map((z) => (
          <option key={z} value={z}>
            {z === UTC ? "Times in UTC" : z === browserZone ? `Local: ${z}` : z}
          </option>
        ))}
      </Select>
      {failed ? (
        <span id={`${id}-failed`} role="alert" className="rc-shell-zone-failed">
          Not saved; try again.
        </span>
      ) : null}
    </span>
  );
}
