import { z } from "zod";

// Isomorphic: shared by the API handlers and, later, the console's audit view. No database here.

export const AUDIT_EXPORT_FORMATS = ["ndjson", "csv"] as const;
export type AuditExportFormat = (typeof AUDIT_EXPORT_FORMATS)[number];

export const DEFAULT_AUDIT_LIMIT = 50;
export const MAX_AUDIT_LIMIT = 500;

const noNul = (s: string) => !s.includes("\u0000");
const filterText = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(500)
  .refine(noNul, "must not contain NUL characters");
/** An ISO 8601 date and time with a zone (`Z` or `+02:00`), any fraction down to microseconds. */
const instant = z.iso
  .datetime({ offset: true, message: "must be an ISO 8601 date-time with a zone, e.g. 2026-11-30T09:00:00Z" })
  // PostgreSQL has no year 0 (1 BC is its year before 1): it would be a 500, not a 400.
  .refine((s) => !s.startsWith("0000"), "must be in year 1 or later");

/** The filters of the decision log, shared by the list and the export. `from` inclusive, `to` exclusive. */
export const auditFilterSchema = z
  .object({
    actor: filterText.optional().meta({
      description: "The actor exactly, or any part of it ignoring case (a 400 past 50 matching actors).",
    }),
    action: filterText.optional().meta({
      description: "The action exactly, or any part of it ignoring case (a 400 past 50 matching actions).",
    }),
    reviewId: z.guid("must be a UUID").optional(),
    /** The entries of one bulk operation (`details.operationId`; docs/operations.md). */
    operationId: z
      .guid("must be a UUID")
      .transform((id) => id.toLowerCase())
      .optional(),
    effectKey: filterText.optional(),
    from: instant.optional().meta({ description: "Inclusive; an ISO 8601 date-time with a zone." }),
    to: instant.optional().meta({ description: "Exclusive; an ISO 8601 date-time with a zone, not before `from`." }),
  })
  .superRefine((query, ctx) => {
    // Milliseconds are enough to catch a swapped range; an empty range (to = from) is no error.
    if (query.from && query.to && Date.parse(query.to) < Date.parse(query.from)) {
      ctx.addIssue({ code: "custom", path: ["to"], message: "must not be earlier than from" });
    }
  });
export type AuditFilter = z.infer<typeof auditFilterSchema>;

export const auditListQuerySchema = auditFilterSchema.and(
  z.object({
    cursor: z.string().max(100).optional(),
    limit: z
      .string()
      .regex(/^\d+$/, "must be a whole number")
      .transform(Number)
      .pipe(z.int().min(1).max(MAX_AUDIT_LIMIT))
      .optional(),
  }),
);
export type AuditListQuery = z.infer<typeof auditListQuerySchema>;

export const auditExportQuerySchema = auditFilterSchema.and(
  z.object({
    format: z
      .enum(AUDIT_EXPORT_FORMATS, { message: "must be ndjson or csv" })
      .meta({ description: "`ndjson` (one entry a line) or `csv` (RFC 4180, formulas defused)." }),
  }),
);
export type AuditExportQuery = z.infer<typeof auditExportQuerySchema>;

/** One decision-log entry as the API serves it; `at` has the microseconds the hash covers. */
export interface AuditEntry {
  seq: number;
  at: string;
  actor: string;
  actorRole: string | null;
  action: string;
  reviewId: string | null;
  effectKey: string | null;
  reason: string | null;
  details: unknown;
  prevHash: string;
  hash: string;
}

export const AUDIT_ENTRY_FIELDS = [
  "seq",
  "at",
  "actor",
  "actorRole",
  "action",
  "reviewId",
  "effectKey",
  "reason",
  "details",
  "prevHash",
  "hash",
] as const satisfies readonly (keyof AuditEntry)[];
