import type { PersonRole } from "@/lib/access/client";

/** One of a person's roles where it holds: `domain` null is every domain (ADR 0029). */
export interface PersonGrant {
  role: PersonRole;
  domain: string | null;
  /** `manual`: the console or CLI; `oidc`: single sign-on's groups claim. */
  source: "manual" | "oidc";
}

// Isomorphic: a person as the admin page and GET /api/v1/people show them.

/** invited: no password yet (their one-time link is unused); disabled: may not sign in. */
export type PersonState = "active" | "invited" | "disabled";

export interface PersonView {
  id: string;
  email: string;
  /** The headline role (shown next to the name); what the person may do is in `grants`. */
  role: PersonRole;
  /** Global grants first, then by domain and role. */
  grants: PersonGrant[];
  state: PersonState;
  /** Why they were disabled (the reason given), while they are. */
  disabledReason: string | null;
  /** Signed-in browsers right now. */
  openSessions: number;
  createdAt: string;
}
