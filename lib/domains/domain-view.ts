import type { Role } from "@/lib/access/client";

// Isomorphic: a domain as the admin page, GET /api/v1/domains and `domain list` show it.

export interface DomainView {
  name: string;
  description: string | null;
  /** Its patterns, sorted: `card.charge`, `invoice.*`. */
  kinds: string[];
  /** Who holds a role in it (each person once per role). */
  grants: { userId: string; email: string; role: Role; source: "manual" | "oidc" }[];
  /** Working tokens scoped to it. */
  tokens: { id: string; name: string; role: Role }[];
  createdBy: string;
  createdAt: string;
}
