// The `--transport` option of the scripts that run a worker against a broker (the demo, the crash
// test, the consumer bench).

export const TRANSPORTS = ["redis", "rabbitmq", "nats"] as const;
export type TransportName = (typeof TRANSPORTS)[number];

/**
 * The broker `--transport <name>` or `--transport=<name>` names among `args`, `fallback` without
 * the option; an unknown name throws.
 */
export function transportOption<F extends TransportName | null>(
  fallback: F,
  args: string[] = process.argv.slice(2),
): TransportName | F {
  const at = args.findIndex((a) => a === "--transport" || a.startsWith("--transport="));
  if (at < 0) return fallback;
  const value = args[at]!.includes("=") ? args[at]!.split("=")[1] : args[at + 1];
  if (!TRANSPORTS.includes(value as TransportName)) {
    throw new Error(`--transport must be one of ${TRANSPORTS.join(", ")} (got ${value})`);
  }
  return value as TransportName;
}
