import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
  verify,
} from "node:crypto";
import { z } from "zod";
import type { ChainTip } from "./verify";

/**
 * Signed checkpoints of the decision log's head (docs/threat-model.md). The owner of the tables
 * can rewrite the log and recompute every hash, and `audit verify` alone cannot tell; a line
 * signed with a key the database never sees, kept somewhere the database owner cannot write,
 * pins one entry's seq and hash. As every hash covers the one before it, that pins the whole
 * log up to that entry. Ed25519 from node:crypto: no dependency, small keys and signatures.
 * Pure: no database here (lib/audit/checkpoint-store.ts reads and writes the log).
 */

export const CHECKPOINT_KIND = "review-console/decision-log-checkpoint";

export interface Checkpoint {
  kind: typeof CHECKPOINT_KIND;
  version: 1;
  /** The checkpointed (last) entry. */
  seq: number;
  hash: string;
  /** The entry's `at`, with microseconds, as the hash renders it. */
  at: string;
  /** When it was signed (ISO 8601, UTC). */
  signedAt: string;
  /** Hex SHA-256 of the public key's DER (SPKI): which key to check it with. */
  keyId: string;
  /** Base64 Ed25519 signature over checkpointMessage(). */
  signature: string;
}

const HEX64 = /^[0-9a-f]{64}$/;
const ENTRY_TIME = /^\d{4,}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

export const checkpointSchema = z.strictObject({
  kind: z.literal(CHECKPOINT_KIND),
  version: z.literal(1),
  seq: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  hash: z.string().regex(HEX64, "must be 64 lower-case hex digits"),
  at: z.string().regex(ENTRY_TIME, "must be an entry time with microseconds"),
  signedAt: z.iso.datetime(),
  keyId: z.string().regex(HEX64, "must be 64 lower-case hex digits"),
  signature: z.base64(),
});

/**
 * The exact bytes that are signed. Plain lines rather than JSON, so no JSON serializer's key
 * order or number format can make a valid checkpoint fail (or two texts share a signature).
 */
export function checkpointMessage(c: Pick<Checkpoint, "seq" | "hash" | "at" | "signedAt" | "keyId">): Buffer {
  return Buffer.from(
    [
      `${CHECKPOINT_KIND} v1`,
      `seq ${c.seq}`,
      `hash ${c.hash}`,
      `at ${c.at}`,
      `signed-at ${c.signedAt}`,
      `key-id ${c.keyId}`,
      "",
    ].join("\n"),
    "utf8",
  );
}

export function keyIdOf(key: KeyObject): string {
  const publicKey = key.type === "private" ? createPublicKey(key) : key;
  return createHash("sha256")
    .update(publicKey.export({ type: "spki", format: "der" }))
    .digest("hex");
}

export function generateCheckpointKeys(): { privatePem: string; publicPem: string; keyId: string } {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  return {
    privatePem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    publicPem: publicKey.export({ type: "spki", format: "pem" }).toString(),
    keyId: keyIdOf(publicKey),
  };
}

function requireEd25519(key: KeyObject, what: string): KeyObject {
  if (key.asymmetricKeyType !== "ed25519") {
    throw new Error(`${what} is a ${key.asymmetricKeyType ?? "symmetric"} key, not Ed25519`);
  }
  return key;
}

export function loadPrivateKey(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new Error("the private key file is not a PEM private key");
  }
  return requireEd25519(key, "the private key");
}

/** A public key; a private key file works too (its public half is used). */
export function loadPublicKey(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch {
    throw new Error("the public key file is not a PEM public key");
  }
  return requireEd25519(key, "the public key");
}

export function signCheckpoint(tip: ChainTip, privateKey: KeyObject, signedAt = new Date()): Checkpoint {
  const seq = Number(tip.seq);
  if (!Number.isSafeInteger(seq) || seq < 1) throw new Error(`cannot checkpoint entry ${tip.seq}`);
  const unsigned = { seq, hash: tip.hash, at: tip.at, signedAt: signedAt.toISOString(), keyId: keyIdOf(privateKey) };
  const signature = sign(null, checkpointMessage(unsigned), requireEd25519(privateKey, "the key")).toString("base64");
  return { kind: CHECKPOINT_KIND, version: 1, ...unsigned, signature };
}

/** Null when `checkpoint` was signed by `publicKey`; otherwise why not. */
export function signatureProblem(checkpoint: Checkpoint, publicKey: KeyObject): string | null {
  const keyId = keyIdOf(publicKey);
  if (checkpoint.keyId !== keyId) {
    return `it names key ${checkpoint.keyId.slice(0, 16)}…, not the given public key ${keyId.slice(0, 16)}…`;
  }
  const valid = verify(null, checkpointMessage(checkpoint), publicKey, Buffer.from(checkpoint.signature, "base64"));
  return valid ? null : "its signature does not verify with the given public key (the line was altered or forged)";
}

/** The checkpoint lines of a file (one JSON object per line, as `audit checkpoint` prints them). */
export function parseCheckpoints(text: string): Checkpoint[] {
  const checkpoints: Checkpoint[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    if (!line.trim()) return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      throw new Error(`line ${index + 1} is not JSON`);
    }
    const parsed = checkpointSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new Error(`line ${index + 1} is not a checkpoint: ${issue.path.join(".") || "line"}: ${issue.message}`);
    }
    checkpoints.push(parsed.data);
  });
  if (checkpoints.length === 0) throw new Error("the file holds no checkpoint");
  return checkpoints;
}
