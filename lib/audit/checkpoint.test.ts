import { createPublicKey, generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  generateCheckpointKeys,
  keyIdOf,
  loadPrivateKey,
  loadPublicKey,
  parseCheckpoints,
  signatureProblem,
  signCheckpoint,
} from "./checkpoint";

const TIP = { seq: 42n, hash: "ab".repeat(32), at: "2026-12-01T09:00:00.123456Z" };

describe("checkpoints", () => {
  const keys = generateCheckpointKeys();
  const privateKey = loadPrivateKey(keys.privatePem);
  const publicKey = loadPublicKey(keys.publicPem);

  it("names the key by the SHA-256 of its public DER, the same from either half", () => {
    expect(keys.keyId).toMatch(/^[0-9a-f]{64}$/);
    expect(keyIdOf(privateKey)).toBe(keys.keyId);
    expect(keyIdOf(publicKey)).toBe(keys.keyId);
  });

  it("signs a checkpoint that survives a round trip through its JSON line", () => {
    const checkpoint = signCheckpoint(TIP, privateKey, new Date("2026-12-01T10:00:00Z"));
    expect(checkpoint).toMatchObject({
      seq: 42,
      hash: TIP.hash,
      at: TIP.at,
      signedAt: "2026-12-01T10:00:00.000Z",
      keyId: keys.keyId,
    });
    const [parsed] = parseCheckpoints(`${JSON.stringify(checkpoint)}\n`);
    expect(parsed).toEqual(checkpoint);
    expect(signatureProblem(parsed!, publicKey)).toBeNull();
  });

  it.each([
    ["seq", { seq: 41 }],
    ["hash", { hash: "cd".repeat(32) }],
    ["at", { at: "2026-12-01T09:00:00.123457Z" }],
    ["signedAt", { signedAt: "2026-12-02T10:00:00.000Z" }],
  ])("refuses a checkpoint whose %s was changed", (_field, change) => {
    const checkpoint = { ...signCheckpoint(TIP, privateKey), ...change };
    expect(signatureProblem(checkpoint, publicKey)).toMatch(/signature does not verify/);
  });

  it("refuses a signature of another key, and a checkpoint naming another key", () => {
    const other = generateCheckpointKeys();
    const byOther = signCheckpoint(TIP, loadPrivateKey(other.privatePem));
    expect(signatureProblem(byOther, publicKey)).toMatch(/not the given public key/);
    // The other key's signature, relabelled with our key id.
    expect(signatureProblem({ ...byOther, keyId: keys.keyId }, publicKey)).toMatch(/signature does not verify/);
  });

  it("accepts only Ed25519 keys", () => {
    const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 });
    expect(() => loadPrivateKey(rsa.privateKey.export({ type: "pkcs8", format: "pem" }).toString())).toThrow(
      "not Ed25519",
    );
    expect(() => loadPublicKey("not a key")).toThrow("not a PEM public key");
    // A private key file yields its public half.
    expect(keyIdOf(loadPublicKey(keys.privatePem))).toBe(keyIdOf(createPublicKey(keys.publicPem)));
  });

  it("names the line that is not a checkpoint", () => {
    const line = JSON.stringify(signCheckpoint(TIP, privateKey));
    expect(() => parseCheckpoints(`${line}\n{oops\n`)).toThrow("line 2 is not JSON");
    expect(() => parseCheckpoints(`${line}\n${line.replace('"seq":42', '"seq":"42"')}`)).toThrow(
      "line 2 is not a checkpoint: seq",
    );
    expect(() => parseCheckpoints("\n\n")).toThrow("no checkpoint");
  });
});
