import { z } from "zod";
import { MAX_MESSAGE_DEPTH, REVIEW_CATEGORIES, messageShapeProblem } from "@review-console/contract";

// Isomorphic: shared by the API handlers and, later, the console's forms. No database here.

export const REVIEW_STATUSES = ["open", "replay-scheduled", "replaying", "resolved", "cancelled"] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

/** Statuses in which a record still awaits its outcome; a new report of its message joins it. */
export const ACTIVE_STATUSES: ReviewStatus[] = ["open", "replay-scheduled", "replaying"];

export const MAX_BATCH = 500;

// PostgreSQL text cannot hold NUL; refusing it here keeps it a 400 instead of a database error.
const noNul = (s: string) => !s.includes("\u0000");
const plain = (max: number) => z.string().max(max).refine(noNul, "must not contain NUL characters");
/** A required string: trimmed, not empty, at most `max` characters, storable in a text column. */
export const requiredText = (max: number) =>
  z.string().trim().min(1, "must not be empty").max(max).refine(noNul, "must not contain NUL characters");

export const sourceSchema = z.object({
  transport: requiredText(100),
  queue: plain(500).optional(),
  consumer: plain(200).optional(),
  transportId: plain(500).optional(),
});

/**
 * Whether messageShapeProblem could find anything in `value`: the same rules (depth, unpaired
 * surrogates in strings and keys), answered without building the path of every value it passes.
 * Intake checks every message, and the full walk was most of a report's validation time
 * (docs/decisions/0035-intake-cost.md); the full one still words the answer when this says yes.
 */
export function mayHaveShapeProblem(value: unknown, depth = 0): boolean {
  if (typeof value === "string") return !value.isWellFormed();
  if (typeof value !== "object" || value === null) return false;
  // Never deeper than this: a hostile nesting costs the full walk's loop, not this recursion.
  if (depth >= MAX_MESSAGE_DEPTH) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (mayHaveShapeProblem(item, depth + 1)) return true;
    return false;
  }
  for (const key of Object.keys(value)) {
    if (!key.isWellFormed()) return true;
    if (mayHaveShapeProblem((value as Record<string, unknown>)[key], depth + 1)) return true;
  }
  return false;
}

/**
 * `errorClass=(none)` selects records without an error class (no last error, or nothing left of
 * it by the rule of SQL `review_error_class`). Neither the rule nor a client ever gives a record
 * exactly this class, so the sentinel cannot collide with one.
 */
export const ERROR_CLASS_NONE = "(none)";

/** A client's own class of its error (a code it knows), in place of the one the rule derives. */
const errorClassSchema = requiredText(64)
  .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), "must be one line of text, without control characters")
  .refine((s) => s !== ERROR_CLASS_NONE, `must not be ${ERROR_CLASS_NONE}, which means "no class"`)
  .meta({
    description:
      "The cause as the client classes it (e.g. a code it knows), 1–64 characters; absent: derived from `lastError`.",
  });

export const reportSchema = z
  .object({
    category: z.enum(REVIEW_CATEGORIES),
    reason: requiredText(200),
    requiredCheck: requiredText(2000),
    attempts: z.int().min(0).max(1_000_000),
    lastError: plain(20_000).optional(),
    errorClass: errorClassSchema.optional(),
    source: sourceSchema.optional(),
    // The envelope as the consumer received it, valid or not. It came out of JSON.parse, so it is
    // JSON already; only its presence and what the database cannot store are checked.
    message: z
      .unknown()
      .superRefine((message, ctx) => {
        if (message === undefined) {
          ctx.addIssue({ code: "custom", message: "is required" });
          return;
        }
        const problem = mayHaveShapeProblem(message) ? messageShapeProblem(message) : null;
        if (problem) ctx.addIssue({ code: "custom", message: problem });
      })
      .meta({ description: "The envelope exactly as the consumer received it, valid or not (any JSON)." }),
  })
  .meta({ id: "ReportRequest", description: "A record a consumer could not process safely." });
export type ReportInput = z.infer<typeof reportSchema>;

export const batchSchema = z
  .object({
    records: z
      .array(z.unknown().meta({ description: "A report as `POST /api/v1/reviews` takes it, validated on its own." }))
      .min(1, "must hold at least one record")
      .max(MAX_BATCH, `at most ${MAX_BATCH} records`),
  })
  .meta({ id: "ReportBatchRequest" });

/** A comma-separated list of allowed values, e.g. `status=open,replaying`. */
function listOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z
    .string()
    .transform((s) =>
      s
        .split(",")
        .map((v) => v.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.enum(values)).min(1).max(values.length));
}

const filterText = requiredText(500);

/**
 * The list's orders besides the default (newest first by arrival, `seq`): a field name, ascending,
 * or with a leading `-`, descending. Ties are broken by the record id in the same direction, so
 * every order is total and a keyset cursor can resume it exactly (ADR 0027).
 */
export const LIST_SORT_FIELDS = ["firstSeenAt", "lastSeenAt", "attempts"] as const;
export type ListSortField = (typeof LIST_SORT_FIELDS)[number];
export const LIST_SORTS = LIST_SORT_FIELDS.flatMap((field) => [field, `-${field}`] as const);
export type ListSort = ListSortField | `-${ListSortField}`;

export const listQuerySchema = z.object({
  status: listOf(REVIEW_STATUSES)
    .optional()
    .meta({ description: `Comma list of ${REVIEW_STATUSES.join(", ")}.` }),
  category: listOf(REVIEW_CATEGORIES)
    .optional()
    .meta({ description: `Comma list of ${REVIEW_CATEGORIES.join(", ")}.` }),
  reason: filterText.optional(),
  kind: filterText.optional(),
  sequenceKey: filterText.optional(),
  effectKey: filterText.optional(),
  /** Exact message id: an index lookup on the message key. */
  messageId: filterText.optional(),
  errorClass: filterText.optional().meta({ description: "Exactly this error class; `(none)`: records without one." }),
  /**
   * `ready=true`: only held sequence-gap records whose missing predecessors have been applied
   * (docs/operations.md, "Gap release"). There is no `ready=false`: absent means every record.
   */
  ready: z
    .literal("true", { error: 'must be "true"' })
    .optional()
    .meta({ description: "Only held sequence-gap records whose predecessors have been applied." }),
  q: z
    .string()
    .trim()
    .min(2, "must have at least 2 characters")
    .max(200)
    .refine(noNul, "must not contain NUL characters")
    .optional()
    .meta({
      description:
        "A whole record id, message id, effect key or sequence key selects the records with it; any other term " +
        "is a case-insensitive substring search of the whole message text, the reason, the required check and the " +
        "last error, and of the start of the record id.",
    }),
  sort: z
    .enum(LIST_SORTS as [ListSort, ...ListSort[]], {
      error: `must be one of ${LIST_SORTS.join(", ")}`,
    })
    .optional()
    .meta({
      description:
        "Order of the list: `firstSeenAt`, `lastSeenAt` or `attempts`, ascending, or descending with a leading `-` " +
        "(e.g. `-attempts`); ties by record id. Absent: newest first by arrival. A cursor belongs to its order.",
    }),
  cursor: z
    .string()
    .max(200)
    .optional()
    .meta({ description: "The `nextCursor` of the previous page (of the same `sort`)." }),
  limit: z
    .string()
    .regex(/^\d+$/, "must be a whole number")
    .transform(Number)
    .pipe(z.int().min(1).max(500))
    .optional()
    .meta({ description: "Page size, 1 to 500 (default 50)." }),
});
export type ListQuery = z.infer<typeof listQuerySchema>;

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * GET /api/v1/reviews only: the list's filters plus `assignee` (ADR 0028). Not part of
 * listQuerySchema, which bulk operations and the grouped view share: `me` means the caller, so a
 * stored selection could not say whom it meant.
 */
export const reviewListQuerySchema = listQuerySchema.extend({
  assignee: z
    .string()
    .trim()
    .refine((s) => s === "me" || s === "none" || UUID_SHAPE.test(s), "must be me, none or a person's id")
    .optional()
    .meta({ description: "`me`: assigned to the signed-in person; `none`: unassigned; or a person's id." }),
});
export type ReviewListQuery = z.infer<typeof reviewListQuerySchema>;

/** GET /api/v1/reviews/count: the list's filters, no page; `exact` for a count past the cap. */
export const reviewCountQuerySchema = reviewListQuerySchema.omit({ cursor: true, limit: true, sort: true }).extend({
  exact: z
    .enum(["true", "false"])
    .optional()
    .meta({ description: "`true`: count every match, however many (slower on a large table); else up to 10,000." }),
});
