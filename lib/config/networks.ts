import { isIP } from "node:net";

// Lists of addresses and CIDR ranges in a setting (WEBHOOK_ALLOWED_NETWORKS, TRUSTED_PROXIES):
// comma-separated, blanks ignored. One reading for the configuration's check and for the code
// that builds a BlockList from the list (lib/notifications/destination.ts).

/** One entry: an address (a range of one) or `address/prefix`. */
export interface NetworkEntry {
  address: string;
  prefix: number;
  family: "ipv4" | "ipv6";
}

/** The entries of a comma-separated list, blanks dropped. */
export function networkListEntries(text: string): string[] {
  return text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

/** An entry read, or null when it is not an address or a CIDR range. */
export function parseNetworkEntry(entry: string): NetworkEntry | null {
  const [address = "", prefixText, ...rest] = entry.split("/");
  const family = isIP(address);
  const max = family === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  if (family === 0 || rest.length > 0 || !(prefix >= 0 && prefix <= max)) return null;
  return { address, prefix, family: family === 4 ? "ipv4" : "ipv6" };
}

/** What is wrong with the first bad entry of a list, or null when every entry is good. */
export function networkListProblem(text: string): string | null {
  for (const entry of networkListEntries(text)) {
    if (parseNetworkEntry(entry) === null) return `"${entry}" is not an address or a CIDR range (10.0.0.0/8, ::1/128)`;
  }
  return null;
}
