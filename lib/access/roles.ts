export const ROLES = ["owner", "support", "auditor", "admin", "consumer"] as const;
export type Role = (typeof ROLES)[number];

/** Who may do what. One table, so the API, the console and the tests read the same rules. */
export const PERMISSIONS = {
  "reviews.report": ["consumer"],
  "reviews.read": ["owner", "support", "auditor", "admin"],
  /** Any action at all on a record; each action then needs its own permission below. */
  "reviews.act": ["owner", "support"],
  "reviews.note": ["owner", "support"],
  /** replay, correct-and-replay, cancel, skip-gap. */
  "reviews.resolve": ["owner"],
  /** confirm-applied, confirm-not-applied: asking the provider is support's job (owners may too). */
  "reviews.confirm": ["support", "owner"],
  /** Assigning a record to a person who acts on records, or unassigning it (ADR 0028). */
  "reviews.assign": ["owner", "support"],
  "replays.claim": ["consumer"],
  /** Bulk operations (docs/operations.md): reading them; acting needs the action's own permission. */
  "operations.read": ["owner", "support", "auditor", "admin"],
  "audit.read": ["auditor", "owner", "admin"],
  "users.manage": ["admin"],
  "metrics.read": ["owner", "support", "auditor", "admin", "consumer"],
  /** A person's own settings (the zone times are shown in); a token has none. */
  "preferences.own": ["owner", "support", "auditor", "admin"],
  /** A person's saved views of the queue, and the team's shared ones (ADR 0047); a token has none. */
  "views.own": ["owner", "support", "auditor", "admin"],
} as const satisfies Record<string, readonly Role[]>;

export type Permission = keyof typeof PERMISSIONS;

export function can(role: Role, permission: Permission): boolean {
  return (PERMISSIONS[permission] as readonly Role[]).includes(role);
}
