import { z } from "zod";
import {
  reasonSchema,
  runAtSchema,
  ACTIVE_STATUSES,
  listQuerySchema,
  requiredText,
  reviewListQuerySchema,
} from "@/lib/reviews/client";
import { isUuid } from "@/lib/domain/ids";
import { messageShapeProblem } from "@review-console/contract";
import { ITEM_STATES, OPERATION_ACTIONS, OPERATION_STATES, VERDICTS } from "./types";

// Isomorphic: the bodies and queries of /api/v1/operations (docs/operations.md).

export const MAX_SELECTION = 200_000;
export const MAX_IDS = 10_000;
export const DEFAULT_RATE = 50;
export const MAX_RATE = 1000;
/** One record every 100 s: slower would look like a stuck operation. */
export const MIN_RATE = 0.01;
export const DEFAULT_AUTO_PAUSE = { threshold: 0.2, minOutcomes: 20 } as const;

/** The records of a cause in the grouped view: the statuses its count counts. */
export const GROUP_STATUSES = ACTIVE_STATUSES;

const uuid = z.string().refine(isUuid, "must be a record id");
const groupText = requiredText(500);

/**
 * The list's filters, as the list's query strings, and its `assignee` (ADR 0028); at least one.
 * `assignee: "me"` is the person creating the operation: the operation keeps their id, so what
 * it selected never depends on who reads it later (lib/operations/selection.ts).
 */
const filterSchema = listQuerySchema
  .omit({ cursor: true, limit: true })
  .extend({
    assignee: reviewListQuerySchema.shape.assignee.meta({
      description:
        "`me`: assigned to the person creating the operation (kept as their id); `none`: unassigned; or a person's id.",
    }),
  })
  .strict()
  .refine((f) => Object.values(f).some((v) => v !== undefined), "at least one filter is required");

/** Strings PostgreSQL's jsonb cannot store (an unpaired surrogate) are a 400, not a 500. */
function storable<T>(schema: z.ZodType<T>) {
  return schema.superRefine((value, ctx) => {
    const problem = messageShapeProblem(value);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });
}

export const selectionSchema = storable(
  z.discriminatedUnion("type", [
    z.object({
      type: z.literal("ids"),
      ids: z.array(uuid).min(1, "at least one id").max(MAX_IDS, `at most ${MAX_IDS} ids`),
    }),
    z.object({ type: z.literal("filter"), filter: filterSchema }),
    z.object({
      type: z.literal("group"),
      group: z.object({ kind: groupText.nullable(), reason: groupText, errorClass: groupText.nullable() }),
    }),
    z.object({
      type: z.literal("unfinished"),
      operationId: z.string().refine(isUuid, "must be an operation id"),
    }),
  ]),
);
export type SelectionInput = z.infer<typeof selectionSchema>;

const autoPauseSchema = z
  .object({ threshold: z.number().gt(0).max(1), minOutcomes: z.int().min(1).max(MAX_SELECTION).optional() })
  .strict();

export const createOperationSchema = z
  .object({
    action: z.enum(OPERATION_ACTIONS),
    reason: reasonSchema,
    selection: selectionSchema,
    runAt: runAtSchema.optional(),
    ratePerSecond: z.number().min(MIN_RATE, `must be at least ${MIN_RATE}`).max(MAX_RATE).optional(),
    canarySize: z.int().min(0).max(MAX_SELECTION).optional(),
    autoPause: autoPauseSchema.nullable().optional(),
  })
  .strict()
  .superRefine((body, ctx) => {
    if (body.runAt && body.action !== "replay") {
      ctx.addIssue({ code: "custom", path: ["runAt"], message: "only a replay runs at a time" });
    }
  })
  .meta({ id: "CreateOperationRequest" });
export type CreateOperationRequest = z.infer<typeof createOperationSchema>;

export const confirmSchema = z
  .object({
    expectedVersion: z.int().min(1),
    dryRunAt: z.iso.datetime({ offset: true }),
    checkDone: z.literal(true, { error: "confirm that you reviewed the dry run's numbers" }),
  })
  .strict()
  .meta({ id: "ConfirmOperationRequest" });
export type ConfirmRequest = z.infer<typeof confirmSchema>;

export const controlSchema = z.object({ reason: reasonSchema }).strict().meta({ id: "OperationControlRequest" });
export type ControlRequest = z.infer<typeof controlSchema>;

/** Pause is the emergency stop: one click, the reason optional (abort and resume still need one). */
export const pauseSchema = z.object({ reason: reasonSchema.optional() }).strict().meta({ id: "PauseOperationRequest" });
export type PauseRequest = z.infer<typeof pauseSchema>;

/** Resume may change auto-pause (or turn it off with null); it judges the outcomes from here on. */
export const resumeSchema = z
  .object({ reason: reasonSchema, autoPause: autoPauseSchema.nullable().optional() })
  .strict()
  .meta({ id: "ResumeOperationRequest" });
export type ResumeRequest = z.infer<typeof resumeSchema>;

export const emptyBodySchema = z.object({}).strict().meta({ id: "EmptyBody" });

/** PUT /api/v1/operations/auto-replay/{kind}: turns the kind's automatic replay of ready records on or off. */
export const autoReplaySwitchSchema = z
  .object({ enabled: z.boolean({ error: "must be true or false" }), reason: reasonSchema })
  .meta({ id: "AutoReplaySwitchRequest" });

/** The list's page size: 1..500, a whole number in the query string. */
const limit = listQuerySchema.shape.limit;

export const operationListQuerySchema = z.object({
  state: z.enum(OPERATION_STATES).optional(),
  cursor: z.string().max(100).optional(),
  limit,
});
export type OperationListQuery = z.infer<typeof operationListQuerySchema>;

export const itemsQuerySchema = z.object({
  state: z.enum(ITEM_STATES).optional(),
  verdict: z.enum(VERDICTS).optional(),
  cursor: z.string().max(100).optional(),
  limit,
});
export type ItemsQuery = z.infer<typeof itemsQuerySchema>;

export const operationLogQuerySchema = z.object({ cursor: z.string().max(100).optional(), limit });
