"use client";

import { useEffect, useState } from "react";

/**
 * The current time in ms, refreshed every `intervalMs`. Starts from `initialNow` (pass the
 * server's `Date.now()` from the page) so the first render in the browser matches the server's
 * HTML, then ticks on the client.
 */
export function useNow(initialNow: number, intervalMs = 15_000): number {
  const [now, setNow] = useState(initialNow);
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), intervalMs);
    return () => window.clearInterval(timer);
  }, [intervalMs]);
  return now;
}
