import { invalidField } from "@/lib/domain/refusal";

// The largest value of PostgreSQL's bigint, the type of every `seq` keyset.
const MAX_SEQ = 2n ** 63n - 1n;

/**
 * An opaque keyset cursor over a `seq` column: clients cannot depend on its form, so the keyset
 * may change without breaking them. Each list has its own prefix, so a cursor of one list is
 * refused by another instead of silently paging it from a wrong place.
 */
export function seqCursor(prefix: string) {
  const pattern = new RegExp(`^${prefix}:(\\d{1,19})$`);
  return {
    encode(seq: bigint): string {
      return Buffer.from(`${prefix}:${seq}`).toString("base64url");
    },
    decode(cursor: string): bigint {
      const raw = /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, "base64url").toString("utf8") : "";
      const match = pattern.exec(raw);
      const seq = match?.[1] ? BigInt(match[1]) : null;
      if (seq === null || seq > MAX_SEQ) {
        throw invalidField("cursor", "is not a cursor this API returned");
      }
      return seq;
    },
  };
}

/** GET /api/v1/reviews */
export const reviewCursor = seqCursor("s");
/** GET /api/v1/audit */
export const auditCursor = seqCursor("d");
