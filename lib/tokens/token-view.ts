import type { Role } from "@/lib/access/client";

// Isomorphic: a token as the admin page and GET /api/v1/tokens show it. Never the token itself.

export type TokenState = "active" | "expired" | "revoked";

export interface TokenView {
  id: string;
  name: string;
  role: Role;
  /** The one domain it reports and claims in (ADR 0029); null: every domain. */
  domain: string | null;
  /** The first 12 characters (`rct_` and 8 more), to tell tokens apart in logs and lists. */
  prefix: string;
  state: TokenState;
  /** Actor label of who issued it; null for tokens issued before this was recorded. */
  createdBy: string | null;
  createdAt: string;
  /** Coarse: to the minute. */
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
  revokedBy: string | null;
}
