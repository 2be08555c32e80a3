import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { bareHost, destinationRefusal } from "./destination";

// One webhook POST that can reach only a permitted address. The name is resolved here, every
// address it resolves to is checked (./destination.ts), and the socket connects to the address
// that was checked: there is no second resolution an attacker's DNS could answer differently.
// No connection is reused (agent: false), so each delivery resolves and checks again.

/** A destination the notifier refused to connect to: recorded as the attempt's error. */
export class DestinationRefused extends Error {}

/** net.connect's lookup: resolves every address, refuses the connection if any is not permitted. */
const checkedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true, verbatim: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, "", 0);
    for (const { address } of addresses) {
      const refusal = destinationRefusal(address);
      if (refusal !== null) return callback(new DestinationRefused(`${hostname} resolves to ${refusal}`), "", 0);
    }
    const first = addresses[0];
    if (!first) return callback(new Error(`${hostname} resolves to no address`), "", 0);
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    callback(null, first.address, first.family);
  });
};

/** POSTs `body` to `url`, without following a redirect; resolves to the status, never reads the answer. */
export function postOnce(
  url: string,
  body: string,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    // An address in the URL is connected to directly (net skips lookup): check it here.
    const host = bareHost(target.hostname);
    const refusal = destinationRefusal(host);
    if (refusal !== null) return reject(new DestinationRefused(refusal));
    const send = target.protocol === "https:" ? httpsRequest : httpRequest;
    const request = send(target, {
      method: "POST",
      headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
      agent: false,
      signal,
      ...(isIP(host) === 0 ? { lookup: checkedLookup } : {}),
    });
    request.on("response", (response) => {
      // Only the status is kept: the endpoint's text is never read, stored or shown.
      response.destroy();
      resolve(response.statusCode ?? 0);
    });
    request.on("error", reject);
    request.end(body);
  });
}
