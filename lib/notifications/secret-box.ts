import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { authSecret } from "@/lib/auth";

// An endpoint's signing secret must be read back to sign each delivery, so it cannot be kept as a
// hash like a token. It is sealed with AES-256-GCM under a key derived (HKDF-SHA256) from the
// console's secret (authSecret: BETTER_AUTH_SECRET, or the data folder's key): a copy of the
// database alone does not hold the secrets. Changing that secret makes sealed secrets unreadable;
// such an endpoint's deliveries fail (recorded) until it is removed and added again.

const SEALED_PREFIX = "v1.";

function key(): Buffer {
  return Buffer.from(hkdfSync("sha256", authSecret(), "review-console", "webhook-endpoint-secrets", 32));
}

/** A new Standard Webhooks secret: `whsec_` and 32 random bytes in base64. */
export function newEndpointSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

export function sealSecret(secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key(), iv);
  const sealed = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return SEALED_PREFIX + Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString("base64");
}

/** The secret, or an Error when it was sealed under another key (or altered). */
export function openSecret(sealed: string): string {
  if (!sealed.startsWith(SEALED_PREFIX)) throw new Error("unknown sealed-secret format");
  const raw = Buffer.from(sealed.slice(SEALED_PREFIX.length), "base64");
  const decipher = createDecipheriv("aes-256-gcm", key(), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
}
