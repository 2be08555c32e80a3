import type { PersonRole } from "@/lib/auth/person-roles";

// Isomorphic: a person as the admin page and GET /api/v1/people show them.

/** invited: no password yet (their one-time link is unused); disabled: may not sign in. */
export type PersonState = "active" | "invited" | "disabled";

export interface PersonView {
  id: string;
  email: string;
  role: PersonRole;
  state: PersonState;
  /** Why they were disabled (the reason given), while they are. */
  disabledReason: string | null;
  /** Signed-in browsers right now. */
  openSessions: number;
  createdAt: string;
}
