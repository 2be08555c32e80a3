import { hash, verify } from "@node-rs/argon2";

// Argon2id (memory-hard) with the library's defaults: 19 MiB, 2 passes, as OWASP recommends.
export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

export function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  return verify(passwordHash, password).catch(() => false);
}
