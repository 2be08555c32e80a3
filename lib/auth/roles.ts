export const ROLES = ["owner", "support", "auditor", "admin", "consumer"] as const;
export type Role = (typeof ROLES)[number];

/** Who may do what. One table, so the API, the console and the tests read the same rules. */
export const PERMISSIONS = {
  "reviews.report": ["consumer"],
  "reviews.read": ["owner", "support", "auditor", "admin"],
  "audit.read": ["auditor", "owner", "admin"],
  "metrics.read": ["owner", "support", "auditor", "admin", "consumer"],
} as const satisfies Record<string, readonly Role[]>;

export type Permission = keyof typeof PERMISSIONS;

export function can(role: Role, permission: Permission): boolean {
  return (PERMISSIONS[permission] as readonly Role[]).includes(role);
}
