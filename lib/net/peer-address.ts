// What the console's own server (./console-server.ts) tells the application about each request's
// socket, kept apart from that server so the application does not import Next's server factory.

/** The socket's address, set on every request by the console's server; whatever a client sent is replaced. */
export const PEER_ADDRESS_HEADER = "x-review-console-peer";
/**
 * Set in this process before Next loads: only then is PEER_ADDRESS_HEADER trusted. Under a plain
 * `next start` the header would be the client's own word, so it is ignored there.
 */
export const PEER_HEADER_FLAG = "REVIEW_CONSOLE_PEER_HEADER";

export function peerHeaderTrusted(): boolean {
  return process.env[PEER_HEADER_FLAG] === "1";
}
