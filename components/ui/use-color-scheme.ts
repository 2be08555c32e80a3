"use client";

import { useSyncExternalStore } from "react";

export type ColorScheme = "light" | "dark";

const QUERY = "(prefers-color-scheme: dark)";

function subscribe(onChange: () => void): () => void {
  const media = window.matchMedia(QUERY);
  media.addEventListener("change", onChange);
  return () => media.removeEventListener("change", onChange);
}

/**
 * The system's colour scheme, for what CSS cannot reach (a canvas chart, CodeMirror's theme).
 * The server cannot know it, so the server's HTML and the first render in the browser are light
 * (no hydration mismatch); React re-renders with the real scheme right after, and again when
 * the system setting changes.
 */
export function useColorScheme(): ColorScheme {
  return useSyncExternalStore(
    subscribe,
    () => (window.matchMedia(QUERY).matches ? "dark" : "light"),
    () => "light",
  );
}
