import { ApiError } from "@/lib/http/errors";

// The largest value of PostgreSQL's bigint, the type of `seq`.
const MAX_SEQ = 2n ** 63n - 1n;

// Opaque to clients so the keyset can change without breaking them; today it is the record's seq.
export function encodeCursor(seq: bigint): string {
  return Buffer.from(`s:${seq}`).toString("base64url");
}

export function decodeCursor(cursor: string): bigint {
  const raw = /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, "base64url").toString("utf8") : "";
  const match = /^s:(\d{1,19})$/.exec(raw);
  const seq = match?.[1] ? BigInt(match[1]) : null;
  if (seq === null || seq > MAX_SEQ) {
    throw new ApiError(400, "invalid-request", "cursor: is not a cursor this API returned", [
      { path: "cursor", message: "is not a cursor this API returned" },
    ]);
  }
  return seq;
}
