import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import { config, ConfigError } from "@/lib/config";
import { networkListEntries, networkListProblem, parseNetworkEntry } from "@/lib/config/networks";

// Where a webhook may be delivered: never to the console's own machine or network (loopback,
// private, link-local, unique-local, unspecified, cloud metadata), or anyone who may add a webhook
// could make the notifier POST into services that trust their network (docs/threat-model.md).
// The one question "may the notifier connect to this address?" is answered by destinationRefusal;
// the URL schema asks it of a literal host, addWebhook of every address the name resolves to, and
// each delivery again of the address it then connects to (./post.ts).

/** The setting that allows chosen ranges anyway, for receivers on premises: CIDR ranges or addresses. */
export const ALLOWED_NETWORKS_SETTING = "WEBHOOK_ALLOWED_NETWORKS";

type Family = "ipv4" | "ipv6";

/** Ranges that are not the public internet (IANA special-purpose registries). */
const INTERNAL_RANGES: [string, number, Family][] = [
  ["0.0.0.0", 8, "ipv4"], // "this network", 0.0.0.0 reaches the local host
  ["10.0.0.0", 8, "ipv4"],
  ["100.64.0.0", 10, "ipv4"], // carrier-grade NAT, shared address space
  ["127.0.0.0", 8, "ipv4"],
  ["169.254.0.0", 16, "ipv4"], // link-local, with 169.254.169.254 the cloud metadata service
  ["172.16.0.0", 12, "ipv4"],
  ["192.0.0.0", 24, "ipv4"],
  ["192.168.0.0", 16, "ipv4"],
  ["198.18.0.0", 15, "ipv4"],
  ["224.0.0.0", 4, "ipv4"], // multicast
  ["240.0.0.0", 4, "ipv4"], // reserved, and 255.255.255.255
  ["::", 96, "ipv6"], // unspecified, loopback, and the deprecated IPv4-compatible form
  ["64:ff9b:1::", 48, "ipv6"], // local-use NAT64
  ["100::", 64, "ipv6"], // discard
  ["fc00::", 7, "ipv6"], // unique-local (fd00:ec2::254 is a metadata address)
  ["fe80::", 10, "ipv6"], // link-local
  ["fec0::", 10, "ipv6"], // site-local (deprecated, still routed by some)
  ["ff00::", 8, "ipv6"], // multicast
];

const internal = new BlockList();
for (const [address, prefix, family] of INTERNAL_RANGES) internal.addSubnet(address, prefix, family);

/** Names that are the local machine or a metadata service whatever a resolver says. */
function internalName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, "");
  return (
    name === "localhost" ||
    name.endsWith(".localhost") ||
    name === "metadata" ||
    name === "metadata.google.internal" ||
    name === "metadata.goog" ||
    name === "instance-data" ||
    name === "instance-data.ec2.internal"
  );
}

/**
 * The IPv4 address an IPv6 one carries (IPv4-mapped ::ffff:a.b.c.d is matched by BlockList
 * itself): NAT64 64:ff9b::/96 and 6to4 2002::/16 reach the IPv4 address inside them.
 */
function embeddedIpv4(address: string): string | null {
  const groups = expandIpv6(address);
  if (!groups) return null;
  const v4 = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0)) {
    return v4(groups[6]!, groups[7]!);
  }
  if (groups[0] === 0x2002) return v4(groups[1]!, groups[2]!);
  return null;
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part included). */
function expandIpv6(address: string): number[] | null {
  let text = address;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split("::") as [string, string | undefined];
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((g) => parseInt(g, 16)));
  const front = parse(head);
  const back = tail === undefined ? [] : parse(tail);
  const missing = 8 - front.length - back.length;
  if (missing < 0 || (tail === undefined && missing !== 0)) return null;
  return [...front, ...Array<number>(missing).fill(0), ...back];
}

const allowedCache = new Map<string, BlockList>();

/**
 * WEBHOOK_ALLOWED_NETWORKS (the configuration's, checked at start: lib/config) or the list given,
 * as a BlockList; throws naming the setting and the entry when one is bad.
 */
export function allowedNetworks(text = config().WEBHOOK_ALLOWED_NETWORKS.join(",")): BlockList {
  const cached = allowedCache.get(text);
  if (cached) return cached;
  const list = new BlockList();
  for (const entry of networkListEntries(text)) {
    const network = parseNetworkEntry(entry);
    if (!network) throw new ConfigError(ALLOWED_NETWORKS_SETTING, networkListProblem(entry)!);
    list.addSubnet(network.address, network.prefix, network.family);
  }
  allowedCache.set(text, list);
  return list;
}

function isInternalAddress(address: string, family: Family): boolean {
  if (internal.check(address, family)) return true;
  const inner = family === "ipv6" ? embeddedIpv4(address) : null;
  return inner !== null && internal.check(inner, "ipv4");
}

/** A host as URL.hostname gives it, without IPv6 brackets. */
export function bareHost(hostname: string): string {
  return hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
}

/**
 * Why the notifier must not connect to this address or name, or null when it may. An address is
 * refused when internal and not in WEBHOOK_ALLOWED_NETWORKS; a name only when it is one that
 * always means this machine or a metadata service (what it resolves to is checked separately).
 */
export function destinationRefusal(host: string, allowed: BlockList = allowedNetworks()): string | null {
  const bare = bareHost(host);
  const version = isIP(bare);
  if (version === 0) {
    if (!internalName(bare)) return null;
    // "localhost" may be allowed like its address: only if every loopback it can mean is.
    const loopbackAllowed = allowed.check("127.0.0.1", "ipv4") && allowed.check("::1", "ipv6");
    return loopbackAllowed && bare.toLowerCase().replace(/\.$/, "").endsWith("localhost")
      ? null
      : `${bare} is this machine or a metadata service, not a public address`;
  }
  const family: Family = version === 4 ? "ipv4" : "ipv6";
  if (!isInternalAddress(bare, family) || allowed.check(bare, family)) return null;
  return `${bare} is a loopback, private, link-local or otherwise internal address (allow it with ${ALLOWED_NETWORKS_SETTING})`;
}

/** How long a name may take to resolve when an endpoint is added: the delivery checks again anyway. */
const RESOLVE_TIMEOUT_MS = 3_000;

/**
 * Why a URL's host must not receive webhooks, after resolving a name to every address it has;
 * null when it may (or the name does not resolve now: each delivery resolves and checks again).
 */
export async function resolvedDestinationRefusal(url: string): Promise<string | null> {
  const host = bareHost(new URL(url).hostname);
  const direct = destinationRefusal(host);
  if (direct !== null || isIP(host) !== 0) return direct;
  let addresses: { address: string }[];
  try {
    addresses = await Promise.race([
      lookup(host, { all: true, verbatim: true }),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error("timeout")), RESOLVE_TIMEOUT_MS).unref()),
    ]);
  } catch {
    return null;
  }
  for (const { address } of addresses) {
    const refusal = destinationRefusal(address);
    if (refusal !== null) return `${host} resolves to ${refusal}`;
  }
  return null;
}
