import type { Role } from "./roles";

// People sign in with one of these; `consumer` is for programs (API tokens) only.
// No server imports here: client components may read this list too.
export const PERSON_ROLES = ["owner", "support", "auditor", "admin"] as const satisfies readonly Role[];
export type PersonRole = (typeof PERSON_ROLES)[number];

export function isPersonRole(value: unknown): value is PersonRole {
  return typeof value === "string" && (PERSON_ROLES as readonly string[]).includes(value);
}
