import { z } from "zod";
import { REVIEW_CATEGORIES } from "@review-console/contract";
import { ROLES, PERSON_ROLES } from "@/lib/access/client";
import { REVIEW_STATUSES } from "@/lib/reviews";
import { preferencesSchema } from "@/lib/users";
import { ITEM_STATES, OPERATION_ACTIONS, OPERATION_CONTROLS, OPERATION_STATES, VERDICTS } from "@/lib/operations";

// The bodies the API answers with, as zod schemas, for the OpenAPI document only: the handlers
// build these bodies from typed rows (lib/reviews/list.ts, lib/operations/view.ts, ...) and never
// parse them. ./response-types.ts holds each TypeScript type against its schema at compile time,
// and tests/integration/openapi.int.test.ts parses real answers with them.

/** An instant as the API writes it: ISO 8601 in UTC (`Date.toISOString()`). */
const instant = z.string().meta({ format: "date-time", examples: ["2026-11-30T09:00:00.000Z"] });
const uuid = z.string().meta({ format: "uuid" });
/** Any JSON value (a message as received, an envelope, a decision's details). */
const json = z.unknown().meta({ description: "Any JSON value." });
const counts = z.record(z.string(), z.int());

const issueSchema = z.object({
  path: z.string().meta({ description: "The offending field (`records.3.message`), empty for the body itself." }),
  message: z.string(),
});

/** `{"error": {code, message, issues?}}`: every 4xx and 500 answer of the API (lib/http/refusal-response.ts). */
export const errorBodySchema = z
  .looseObject({
    error: z.object({
      code: z
        .string()
        .meta({ description: "Which rule said no; stable for programs (`invalid-request`, `not-allowed`)." }),
      message: z.string().meta({ description: "For people; a field's problem starts with the field (`limit: ...`)." }),
      issues: z.array(issueSchema).optional(),
    }),
  })
  .meta({
    id: "Error",
    description:
      "A refusal: nothing changed. Some refusals add members beside `error` (a 409 of an action adds `record`).",
  });

const reviewStatus = z.enum(REVIEW_STATUSES);

const assigneeSchema = z
  .object({ id: uuid, name: z.string(), email: z.string() })
  .meta({ id: "Assignee", description: "A person a record is assigned to." });

export const reviewListItemSchema = z
  .object({
    id: uuid,
    status: reviewStatus,
    category: z.enum(REVIEW_CATEGORIES),
    reason: z.string(),
    kind: z.string().nullable(),
    messageId: z.string().nullable(),
    effectKey: z.string().nullable(),
    sequenceKey: z.string().nullable(),
    sequence: z.number().nullable(),
    attempts: z.int(),
    requiredCheck: z.string(),
    version: z.int(),
    firstSeenAt: instant,
    lastSeenAt: instant,
    ready: z.boolean().meta({ description: "A held sequence-gap record whose predecessors have been applied." }),
    errorClass: z.string().nullable().meta({
      description: "The cause: the class the client sent, else derived from `lastError` (docs/api.md); or null.",
    }),
    lastError: z.string().nullable().meta({ description: "The start (300 characters) of the last error reported." }),
    assignee: assigneeSchema.nullable().meta({ description: "Who the record is assigned to, or null." }),
  })
  .meta({ id: "ReviewListItem" });

export const assigneeListSchema = z.object({
  people: z.array(assigneeSchema.extend({ role: z.enum(["owner", "support"]) })),
});

export const reviewListSchema = z.object({
  items: z.array(reviewListItemSchema),
  nextCursor: z.string().nullable().meta({ description: "Pass as `cursor` for the next page; null on the last." }),
});

export const intakeResultSchema = z.object({ id: uuid, status: reviewStatus, attempts: z.int() });

export const batchResultSchema = z.object({
  results: z.array(
    z.union([
      z.object({
        index: z.int(),
        status: z.union([z.literal(200), z.literal(201)]),
        id: uuid,
        recordStatus: reviewStatus,
        attempts: z.int(),
      }),
      z.object({ index: z.int(), status: z.literal(400), error: errorBodySchema.shape.error }),
      z
        .object({ index: z.int(), status: z.literal(403), error: errorBodySchema.shape.error })
        .meta({ description: "A scoped token's item of a kind outside its domain (`outside-domain`)." }),
    ]),
  ),
  recorded: z.int(),
  rejected: z.int(),
});

/** GET /api/v1/reviews/count. */
export const reviewCountSchema = z.object({
  count: z.int().meta({ description: "The records the filter selects; at most 10,000 unless `exact`." }),
  more: z.boolean().meta({ description: "True when more than `count` match (a capped count)." }),
});

export const reviewStatsSchema = z
  .object({
    total: z.int(),
    byStatus: counts,
    byCategory: counts,
    byReason: counts,
    active: z.object({ byCategory: counts, byReason: counts }),
    oldestOpenAgeSeconds: z.int().nullable(),
    oldestOpenSince: instant.nullable(),
  })
  .meta({ id: "ReviewStats" });

export const reviewGroupsSchema = z.object({
  groups: z.array(
    z.object({
      kind: z.string().nullable(),
      reason: z.string(),
      errorClass: z.string().nullable(),
      count: z.int().meta({ description: "Exact: kept by the database in the same transaction as each change." }),
      oldestFirstSeenAt: instant.meta({ description: "Exact: the group's oldest first sighting." }),
      newestLastSeenAt: instant.meta({
        description:
          "An estimate (named in `estimates`): the latest sighting of a record while it was in the group, " +
          "which may be a record that has left the group since.",
      }),
      replayable: z.int().meta({
        description: "Exact: how many of the group's records a replay fits now (open, in a category replay allows).",
      }),
    }),
  ),
  truncated: z.boolean().meta({ description: "True when there were more than 200 groups." }),
  estimates: z
    .array(z.literal("newestLastSeenAt"))
    .meta({ description: "The group fields that are estimates, not exact figures." }),
});

const recordOperationRefSchema = z.object({
  operationId: uuid,
  action: z.enum(OPERATION_ACTIONS),
  operationState: z.enum(OPERATION_STATES),
  itemState: z.enum(ITEM_STATES),
  position: z.int(),
});

export const reviewDetailSchema = reviewListItemSchema
  .extend({
    domain: z.string().nullable().meta({ description: "The domain of the record's kind, or null (ADR 0030)." }),
    reportCount: z.int(),
    payloadSchema: z.string().nullable(),
    source: json,
    updatedAt: instant,
    message: json.meta({ description: "The message exactly as the consumer sent it (spliced in as its text)." }),
    messageText: z.string().meta({ description: "The same message as JSON text, byte for byte as received." }),
    revisions: z.array(
      z.object({ number: z.int(), envelope: json, reason: z.string(), createdBy: z.string(), createdAt: instant }),
    ),
    history: z.array(
      z.object({
        id: z.int(),
        at: instant,
        actor: z.string(),
        action: z.string(),
        fromStatus: z.string().nullable().meta({ description: "The record's status before, when it changed." }),
        toStatus: z.string().nullable().meta({ description: "The record's status after, when it changed." }),
        reason: z.string().nullable(),
        details: json,
      }),
    ),
    replays: z.array(
      z.object({
        id: uuid,
        revisionNumber: z.int(),
        state: z.string(),
        runAt: instant,
        claimedBy: z.string().nullable(),
        claimExpiresAt: instant.nullable(),
        detail: z.string().nullable(),
        createdBy: z.string(),
        createdAt: instant,
        completedAt: instant.nullable(),
      }),
    ),
    journal: z
      .object({
        effectKey: z.string(),
        state: z.string(),
        messageId: z.string().nullable(),
        sequenceKey: z.string().nullable(),
        sequence: z.number().nullable(),
        providerRef: z.string().nullable(),
        leaseExpiresAt: instant.nullable(),
        startedAt: instant,
        updatedAt: instant,
      })
      .nullable(),
    sequenceState: z.object({ sequenceKey: z.string(), lastSequence: z.number(), updatedAt: instant }).nullable(),
    heldOnKey: z.array(
      z.object({
        id: uuid,
        sequence: z.number().nullable(),
        status: reviewStatus,
        category: z.string(),
        reason: z.string(),
      }),
    ),
    operations: z
      .array(recordOperationRefSchema)
      .meta({ description: "The bulk operations this record belongs to that the caller may open, newest first." }),
    approvalNeeded: z.array(z.enum(["cancel", "confirm-applied", "skip-gap"])).meta({
      description:
        "The actions on this record an approval policy would hold for a second person (its domain's policy, else the default).",
    }),
  })
  .meta({ id: "ReviewDetail" });

/** A 409 of an action: the refusal with the record as it is now, so nobody overwrites blind. */
export const actionConflictSchema = errorBodySchema.extend({ record: reviewDetailSchema });

/** A 409 for a request identical to one that already waits for approval: its id. */
export const duplicateApprovalSchema = errorBodySchema.extend({
  approvalId: z.string().meta({ description: "The approval request that already waits." }),
});

export const claimedReplaysSchema = z.object({
  items: z.array(
    z.object({
      replayId: uuid,
      reviewId: uuid,
      revisionNumber: z.int(),
      claimExpiresAt: instant,
      category: z.string(),
      envelope: json.meta({ description: "The envelope to run, exactly as stored (same `id`, same `effectKey`)." }),
      message: json.meta({ description: "The record's message exactly as received." }),
    }),
  ),
});

export const renewedClaimsSchema = z.object({
  items: z
    .array(z.object({ replayId: uuid, claimExpiresAt: instant }))
    .meta({ description: "The claims renewed; a replay left out is no longer this consumer's (its claim ran out)." }),
});

export const outcomeResultSchema = z.object({
  ok: z.literal(true),
  replayId: uuid,
  reviewId: uuid,
  recordStatus: reviewStatus,
});

export const auditEntrySchema = z
  .object({
    seq: z.int(),
    at: z.string().meta({ description: "ISO 8601 in UTC with microseconds, the precision the hash covers." }),
    actor: z.string(),
    actorRole: z.string().nullable(),
    action: z.string(),
    reviewId: uuid.nullable(),
    effectKey: z.string().nullable(),
    reason: z.string().nullable(),
    details: json,
    prevHash: z.string(),
    hash: z.string(),
  })
  .meta({ id: "AuditEntry" });

export const auditPageSchema = z.object({ items: z.array(auditEntrySchema), nextCursor: z.string().nullable() });

export const verificationSchema = z.union([
  z.object({ ok: z.literal(true), entries: z.int(), checkedAt: instant }),
  z.object({
    ok: z.literal(false),
    entries: z.int(),
    brokenSeq: z.union([z.int(), z.literal("head")]),
    problem: z.string(),
    checkedAt: instant,
  }),
]);

const autoPauseSchema = z.object({ threshold: z.number(), minOutcomes: z.int() });

export const operationSchema = z
  .object({
    id: uuid,
    action: z.enum(OPERATION_ACTIONS),
    state: z.enum(OPERATION_STATES),
    reason: z.string(),
    selection: json.meta({ description: "The selection as created: `{type: ids|filter|group|unfinished, ...}`." }),
    total: z.int(),
    createdBy: z.string(),
    createdAt: instant,
    confirmedBy: z.string().nullable(),
    confirmedAt: instant.nullable(),
    finishedAt: instant.nullable(),
    runAt: instant.nullable(),
    ratePerSecond: z.number(),
    canarySize: z.int(),
    canaryPassed: z.boolean(),
    autoPause: autoPauseSchema.nullable(),
    pauseReason: z.string().nullable(),
    version: z.int(),
    dryRun: z.object({ at: instant, counts: z.partialRecord(z.enum(VERDICTS), z.int()) }).nullable(),
    progress: z.object({
      dispatched: z.int(),
      outcomes: z.int(),
      heldAgain: z.int(),
      byState: z.partialRecord(z.enum(ITEM_STATES), z.int()),
      outcome: z
        .object({
          applied: z.int(),
          heldAgain: z.int(),
          withdrawn: z.int(),
          skipped: z.int(),
          neverSent: z.int(),
          waiting: z.int(),
        })
        .meta({
          description:
            "What became of the records (`byState` folded); the parts add up to `total`: applied (applied, duplicate-suppressed, done), heldAgain (held-again, failed), withdrawn (withdrawn, cancelled), skipped, neverSent (not-dispatched), waiting (pending, dispatched).",
        }),
    }),
    controls: z.array(z.enum(OPERATION_CONTROLS)).meta({ description: "What the caller may do now." }),
  })
  .meta({ id: "Operation" });

export const operationListSchema = z.object({ items: z.array(operationSchema), nextCursor: z.string().nullable() });

export const operationItemsSchema = z.object({
  items: z.array(
    z
      .object({
        position: z.int(),
        reviewId: uuid,
        state: z.enum(ITEM_STATES),
        verdict: z.enum(VERDICTS).nullable(),
        verdictDetail: z.string().nullable(),
        replayId: uuid.nullable(),
        detail: z.string().nullable(),
        sequenceKey: z.string().nullable(),
        sequence: z.number().nullable(),
        effectKey: z.string().nullable(),
        frozenVersion: z.int(),
        updatedAt: instant,
        record: z.object({
          status: z.string(),
          category: z.string(),
          reason: z.string(),
          kind: z.string().nullable(),
          messageId: z.string().nullable(),
          version: z.int(),
        }),
      })
      .meta({ id: "OperationItem" }),
  ),
  nextCursor: z.string().nullable(),
});

export const kindAutoReplaySchema = z
  .object({
    kind: z.string(),
    autoReplayReady: z.boolean(),
    pausedReason: z.string().nullable(),
    updatedBy: z.string().nullable(),
    updatedAt: instant.nullable(),
    ready: z.int(),
  })
  .meta({ id: "KindAutoReplay" });

export const autoReplayListSchema = z.object({ kinds: z.array(kindAutoReplaySchema) });

export const grantSchema = z
  .object({
    role: z.enum(PERSON_ROLES),
    domain: z.string().nullable().meta({ description: "null: every domain." }),
    source: z.enum(["manual", "oidc"]),
  })
  .meta({ id: "Grant" });

export const personSchema = z
  .object({
    id: uuid,
    email: z.string(),
    role: z.enum(PERSON_ROLES).meta({ description: "The headline role; what they may do is in `grants`." }),
    grants: z.array(grantSchema).meta({ description: "Global grants first (ADR 0029)." }),
    state: z.enum(["active", "invited", "disabled"]),
    disabledReason: z.string().nullable(),
    openSessions: z.int(),
    createdAt: instant,
  })
  .meta({ id: "Person" });

const passwordLinkSchema = z.object({
  url: z.string().meta({ description: "`<this site>/set-password?token=…`; works once, for 48 hours." }),
  expiresAt: instant,
});
const pausedSchema = z.object({
  operations: z.array(uuid).meta({ description: "Operations that ran on this authority and are now paused." }),
  kinds: z.array(z.string()).meta({ description: "Kinds whose automatic replay is now paused." }),
});

export const peopleListSchema = z.object({ people: z.array(personSchema) });

/** GET and PUT /api/v1/me/preferences. */
export const preferencesAnswerSchema = z.object({ preferences: preferencesSchema });
export const invitedSchema = z.object({ person: personSchema, link: passwordLinkSchema });
export const personChangedSchema = z.object({ person: personSchema, sessionsEnded: z.int(), paused: pausedSchema });
export const personEnabledSchema = z.object({ person: personSchema });
export const passwordResetSchema = z.object({ person: personSchema, sessionsEnded: z.int(), link: passwordLinkSchema });

export const tokenSchema = z
  .object({
    id: uuid,
    name: z.string(),
    role: z.enum(ROLES),
    domain: z.string().nullable().meta({ description: "The one domain it reports and claims in; null: every domain." }),
    prefix: z.string().meta({ description: "The first 12 characters (`rct_` and 8 more)." }),
    state: z.enum(["active", "expired", "revoked"]),
    createdBy: z.string().nullable(),
    createdAt: instant,
    lastUsedAt: instant.nullable().meta({ description: "Written at most once a minute." }),
    expiresAt: instant.nullable(),
    revokedAt: instant.nullable(),
    revokedBy: z.string().nullable(),
  })
  .meta({ id: "Token" });

export const tokenListSchema = z.object({ tokens: z.array(tokenSchema) });
export const tokenIssuedSchema = z.object({
  secret: z.string().meta({ description: "The token (`rct_…`), in this answer only; only its hash is kept." }),
  token: tokenSchema,
});
export const tokenRevokedSchema = z.object({ token: tokenSchema, paused: pausedSchema });

export const healthSchema = z.union([
  z.object({ status: z.literal("ok") }),
  z.object({ status: z.literal("unavailable"), error: z.string() }),
]);

const arrivalSeriesSchema = z.object({
  key: z.string().meta({ description: "The category, reason or kind; `(none)` for records without a kind." }),
  total: z.int(),
  counts: z.array(z.int()).meta({ description: "One count per bucket, in the order of `buckets`." }),
});

export const overviewSchema = z
  .object({
    window: z.enum(["24h", "7d", "30d"]),
    generatedAt: instant,
    from: instant.meta({ description: "The start of the first bucket (UTC)." }),
    to: instant.meta({ description: "Now: the last bucket is partial." }),
    arrivals: z
      .object({
        bucket: z.enum(["hour", "day"]),
        buckets: z.array(instant).meta({ description: "The start of each bucket (UTC hours or days)." }),
        total: z.int(),
        byCategory: z.array(arrivalSeriesSchema),
        byReason: z.array(arrivalSeriesSchema),
        byKind: z.array(arrivalSeriesSchema),
      })
      .meta({
        description:
          "Records by the bucket of their first sighting and their current category, reason and kind. Exact: kept by the database in the same transaction as each change.",
      }),
    open: z.object({ total: z.int(), byCategory: counts }).meta({ description: "Records in status open. Exact." }),
    oldestOpen: z
      .object({
        id: uuid,
        category: z.enum(REVIEW_CATEGORIES),
        reason: z.string(),
        kind: z.string().nullable(),
        firstSeenAt: instant,
        ageSeconds: z.int(),
      })
      .nullable(),
    resolution: z
      .object({
        finished: z.int().meta({ description: "Records finished in the window that the percentiles are over." }),
        sampled: z.boolean().meta({
          description: "True when the window held more than `sampleLimit` finished records: the newest were used.",
        }),
        sampleLimit: z.int(),
        causes: z.array(
          z.object({
            kind: z.string().nullable(),
            reason: z.string(),
            errorClass: z.string().nullable(),
            finished: z.int(),
            p50Seconds: z.int(),
            p95Seconds: z.int(),
          }),
        ),
        truncated: z.boolean().meta({ description: "True when there were more than 50 causes." }),
      })
      .meta({
        description:
          "Time from first sighting to resolved or cancelled, per cause (kind + reason + error class), over the records finished in the window.",
      }),
    operations: z.object({
      inFlight: z.int(),
      byState: counts,
      items: z.array(
        z.object({
          id: uuid,
          action: z.enum(OPERATION_ACTIONS),
          state: z.enum(OPERATION_STATES),
          total: z.int(),
          reason: z.string(),
          createdAt: instant,
        }),
      ),
    }),
    scope: z
      .object({
        domains: z
          .array(z.string())
          .nullable()
          .meta({ description: "The reader's domains the figures cover; null: every domain (a global grant)." }),
        openInNoDomain: z.int().nullable().meta({
          description: "For a reader of every domain: open records whose kind is in no domain (null otherwise).",
        }),
      })
      .meta({ description: "Whose records the figures cover (ADR 0030)." }),
    estimates: z
      .array(z.literal("resolution"))
      .meta({ description: "The parts of the answer that are estimates, not exact figures." }),
  })
  .meta({ id: "Overview" });

export const domainSchema = z
  .object({
    name: z.string(),
    description: z.string().nullable(),
    kinds: z.array(z.string()).meta({ description: "Kinds (`card.charge`) and prefixes (`invoice.*`), sorted." }),
    grants: z.array(
      z.object({ userId: uuid, email: z.string(), role: z.enum(PERSON_ROLES), source: z.enum(["manual", "oidc"]) }),
    ),
    tokens: z
      .array(z.object({ id: uuid, name: z.string(), role: z.enum(ROLES) }))
      .meta({ description: "Working tokens scoped to it." }),
    createdBy: z.string(),
    createdAt: instant,
  })
  .meta({ id: "Domain" });

export const domainListSchema = z.object({ domains: z.array(domainSchema) });
export const domainCreatedSchema = z.object({ domain: domainSchema });
export const domainUpdatedSchema = z.object({ domain: domainSchema, kindsBefore: z.array(z.string()) });
export const domainRemovedSchema = z.object({ removed: z.string(), kinds: z.array(z.string()) });
export const grantListSchema = z.object({ grants: z.array(grantSchema), role: z.enum(PERSON_ROLES) });
export const grantChangedSchema = z.object({
  person: personSchema,
  headline: z
    .object({ from: z.enum(PERSON_ROLES), to: z.enum(PERSON_ROLES) })
    .meta({ description: "The headline role before and after; it moves only when its grant went." }),
  paused: pausedSchema,
});
// Four-eyes approvals (docs/decisions/0031-four-eyes-approvals.md).

export const approvalSchema = z
  .object({
    id: uuid,
    status: z.enum(["pending", "approved", "rejected", "expired", "failed", "withdrawn"]),
    decision: z.enum(["operation", "cancel", "confirm-applied", "skip-gap"]),
    action: z.string().meta({ description: "The record action, or `operation`." }),
    operationAction: z.string().nullable().meta({ description: "For an operation: replay, cancel or note." }),
    permission: z.string().meta({ description: "What the approver must hold in the decision's domain." }),
    domain: z.string().nullable().meta({ description: "Null: no domain, or several (then `domains`)." }),
    domains: z.array(z.string()),
    reviewId: uuid.nullable(),
    expectedVersion: z.int().nullable(),
    records: z.int().nullable().meta({ description: "For an operation: the records its selection held." }),
    reason: z.string().meta({ description: "The requester's reason." }),
    requestedBy: z.string(),
    decidedBy: z.string().nullable(),
    decidedReason: z.string().nullable(),
    decidedAt: instant.nullable(),
    problem: z.string().nullable().meta({ description: "Why an approved decision could not run (`failed`)." }),
    operationId: uuid.nullable().meta({ description: "The operation an approved request created." }),
    expiresAt: instant,
    createdAt: instant,
    canDecide: z.boolean().meta({ description: "Whether the caller may approve or reject it now." }),
    operationRequest: z
      .object({
        selection: z
          .unknown()
          .meta({ description: "The selection as asked: ids, a filter, a group or what an operation did not finish." }),
        runAt: instant.nullable(),
        ratePerSecond: z.number().nullable().meta({ description: "Null: the default rate." }),
        canarySize: z.int().nullable().meta({ description: "Null: no canary asked." }),
      })
      .nullable()
      .meta({ description: "For an operation: its selection and settings as asked; null for a record decision." }),
  })
  .meta({ id: "Approval" });

export const approvalAnswerBodySchema = z.object({ approval: approvalSchema });
export const approvalListSchema = z.object({
  approvals: z.array(approvalSchema),
  waitingForYou: z.int().meta({ description: "Pending requests the caller may approve (not their own)." }),
});

export const approvalPolicySchema = z
  .object({
    domain: z.string().nullable().meta({ description: "Null: the default for every domain." }),
    decision: z.enum(["operation", "cancel", "confirm-applied", "skip-gap"]),
    minRecords: z.int().nullable(),
    expiresAfterSeconds: z.int(),
    updatedBy: z.string(),
    updatedAt: instant,
  })
  .meta({ id: "ApprovalPolicy" });
export const approvalPolicyListSchema = z.object({ policies: z.array(approvalPolicySchema) });
export const approvalPolicyAnswerSchema = z.object({ policy: approvalPolicySchema });
