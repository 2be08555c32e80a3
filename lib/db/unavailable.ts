// Whether an error means "the database does not answer right now" (stopped, restarting, failing
// over, out of connections) rather than "this request is wrong": the first is a 503 with
// Retry-After that a client retries, never a 500.

/** Node's socket errors: nobody listens, the connection dropped, or it timed out. */
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EAI_AGAIN"]);

/**
 * PostgreSQL's own: the server is shutting down (57P01 admin, 57P02 crash), starting up or in
 * recovery (57P03), has no connection slot left (53300), the connection failed (class 08), the
 * server is a standby that refuses writes (25006: during a switchover or failover a connection can
 * reach the old primary, demoted, before the proxy in front stops routing to it), or the console's
 * database is not there (3D000: dropped, not yet restored; every connection fails).
 */
const SERVER_CODES = /^(57P0[123]|53300|08\d{3}|25006|3D000)$/;

/** What @prisma/adapter-pg calls the same failures (its DriverAdapterError's `cause.kind`). */
const ADAPTER_KINDS = new Set([
  "DatabaseNotReachable",
  "DatabaseDoesNotExist",
  "ConnectionClosed",
  "SocketTimeout",
  "TooManyConnections",
]);

interface Inspectable {
  code?: unknown;
  kind?: unknown;
  originalCode?: unknown;
  message?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: unknown };
}

function matches(value: Inspectable): boolean {
  if (typeof value.code === "string" && (SOCKET_CODES.has(value.code) || SERVER_CODES.test(value.code))) return true;
  if (typeof value.originalCode === "string" && SERVER_CODES.test(value.originalCode)) return true;
  if (typeof value.kind === "string" && ADAPTER_KINDS.has(value.kind)) return true;
  // node-postgres, when the server closes a connection it was using or a pool's wait runs out.
  return (
    typeof value.message === "string" &&
    /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/.test(
      value.message,
    )
  );
}

/** True when `error`, or what it wraps (Prisma's meta, an Error's cause), is such a failure. */
export function isDatabaseUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  const pending: unknown[] = [error];
  while (pending.length) {
    const value = pending.pop();
    if (!value || typeof value !== "object" || seen.has(value)) continue;
    seen.add(value);
    const inspectable = value as Inspectable;
    if (matches(inspectable)) return true;
    pending.push(inspectable.cause, inspectable.meta?.driverAdapterError);
    if (value instanceof AggregateError) pending.push(...value.errors);
  }
  return false;
}
