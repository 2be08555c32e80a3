import type { Role } from "./roles";

/**
 * One role held in one domain, or in every domain (`domain: null`). A person holds any number
 * (role_grants); a token holds exactly one (its role, and its domain when scoped). No server
 * imports here: client components may read grants too.
 */
export interface Grant {
  role: Role;
  domain: string | null;
}

/** Every domain: what a person or token had before domains existed. */
export function globalGrant(role: Role): Grant[] {
  return [{ role, domain: null }];
}
