// How long a token works, as people write it: `12h`, `30d`, `2w` (isomorphic, no I/O).

const UNIT_SECONDS = { h: 3600, d: 86_400, w: 7 * 86_400 } as const;

/** Ten years: longer is "never", which is said by giving no expiry at all. */
export const MAX_EXPIRES_IN_SECONDS = 3650 * 86_400;

/** Seconds for `<n>h`, `<n>d` or `<n>w` (n a whole number >= 1, at most ten years), else null. */
export function parseExpiresIn(text: string): number | null {
  const match = /^\s*(\d{1,6})\s*([hdw])\s*$/i.exec(text);
  if (!match) return null;
  const seconds = Number(match[1]) * UNIT_SECONDS[match[2]!.toLowerCase() as keyof typeof UNIT_SECONDS];
  return seconds >= 1 && seconds <= MAX_EXPIRES_IN_SECONDS ? seconds : null;
}
