import { z } from "zod";
import { approvalAnswerSchema, approvalListQuerySchema, policyRemoveSchema, policySetSchema } from "@/lib/approvals";
import { auditExportQuerySchema, auditListQuerySchema } from "@/lib/audit";
import {
  autoReplaySwitchSchema,
  confirmSchema,
  controlSchema,
  pauseSchema,
  createOperationSchema,
  emptyBodySchema,
  itemsQuerySchema,
  operationListQuerySchema,
  operationLogQuerySchema,
  resumeSchema,
} from "@/lib/operations";
import { overviewQuerySchema } from "@/lib/overview";
import { claimSchema, renewSchema, outcomeSchema } from "@/lib/replays";
import {
  actionRequestSchema,
  groupsQuerySchema,
  batchSchema,
  reportSchema,
  reviewCountQuerySchema,
  reviewListQuerySchema,
} from "@/lib/reviews";
import { recordVerdictSchema, verdictRequestSchema } from "@/lib/actions";
import { createDomainSchema, grantRequestSchema, removeDomainSchema, updateDomainSchema } from "@/lib/domains";
import { createTokenSchema, revokeTokenSchema } from "@/lib/tokens";
import { inviteSchema, preferencesSchema, reasonOnlySchema, setRoleSchema } from "@/lib/users";
import { webhookDefinitionSchema, deliveriesQuerySchema, webhookReasonSchema } from "@/lib/notifications";
import { responseSchemas as webhookBody } from "@/lib/notifications";
import { createViewSchema, updateViewSchema } from "@/lib/views";
import { responseSchemas as viewBody } from "@/lib/views";
import { BETTER_AUTH_OPERATIONS } from "./better-auth";
import { type Answer, type ApiOperation, errorAnswer, json } from "./operation";
import * as body from "./responses";

// The operations of the OpenAPI document, one per method and route of app/api: the schemas the
// handlers validate with (the very objects they import) and the answers they give.
// tests/integration/openapi.int.test.ts fails when a route file has no entry here or validates
// with another schema; every answer of apiRoute outside production must be one its entry
// documents (./documented-status.ts), so the integration suite checks the statuses too.

const error = errorAnswer;

const recordId = z.object({
  id: z.string().meta({ description: "The record's id (a UUID; anything else is a 404)." }),
});
const operationId = z.object({
  operationId: z.string().meta({ description: "The operation's id (a UUID; anything else is a 404)." }),
});
const userId = z.object({ userId: z.string().meta({ description: "The person's id." }) });
const tokenId = z.object({ tokenId: z.string().meta({ description: "The token's id (a UUID)." }) });
const domainName = z.object({ name: z.string().meta({ description: "The domain's name (`payments`)." }) });
const replayId = z.object({ replayId: z.string().meta({ description: "The replay's id (a UUID)." }) });
const kind = z.object({ kind: z.string().meta({ description: "The message kind, 1 to 200 characters." }) });

const ok = (description: string, schema: z.ZodType, status = 200): Record<number, Answer> => ({
  [status]: { description, content: json(schema) },
});

/** The person actions of /api/v1/people/{userId}/*: unknown person 404, a rule of the change 409. */
const personErrors = (conflict: string): Record<number, Answer> => ({
  404: error("No person with this id."),
  409: error(conflict),
});

const operationControl = (
  name: string,
  operationIdText: string,
  summary: string,
  schema: z.ZodType,
  description: string,
): ApiOperation => ({
  method: "POST",
  route: `/api/v1/operations/[operationId]/${name}`,
  operationId: operationIdText,
  summary,
  description,
  tag: "Operations",
  access: {
    kind: "permission",
    permission: "reviews.act",
    also: "Controlling a replay or cancel operation also needs `reviews.resolve` (owner); a note one `reviews.note`.",
  },
  params: operationId,
  body: schema,
  answers: {
    ...ok("The operation as it now is.", body.operationSchema),
    404: error("No operation with this id."),
    409: error(
      "The operation's state does not allow this now (`not-allowed`, `dry-run-required`, `dry-run-stale`, `nothing-to-act-on` when the dry run found no record the operation would act on, ...).",
    ),
  },
});

const REVIEWS: ApiOperation[] = [
  {
    method: "GET",
    route: "/api/v1/reviews",
    operationId: "listReviews",
    summary: "List review records",
    description:
      "Newest first unless `sort` names another order (ties by id); keyset pagination (`nextCursor`, bound to its order); filters combine (AND).",
    tag: "Review records",
    access: { kind: "permission", permission: "reviews.read" },
    query: reviewListQuerySchema,
    answers: ok("A page of records.", body.reviewListSchema),
  },
  {
    method: "POST",
    route: "/api/v1/reviews",
    operationId: "reportReview",
    summary: "Report a record",
    description:
      "A consumer reports a message it could not process safely. An open record of the same message (its `message.id`, or a fingerprint of the raw message) is updated, never duplicated.",
    tag: "Review records",
    access: { kind: "permission", permission: "reviews.report" },
    body: reportSchema,
    answers: {
      403: error(
        "The role may not report, or a token scoped to a domain reported a kind of another domain or of none (`outside-domain`, naming `message.kind`; ADR 0029), or a message whose id is that of an active record of such a kind (`outside-domain`, naming `message.id`; ADR 0038): nothing is written. Refusals are written to the decision log.",
      ),
      409: error(
        "A token scoped to a domain reported an `effectKey` or `sequenceKey` that records (or the effect journal) of another domain already name (`key-in-other-domain`, naming `message.effectKey` or `message.sequenceKey` and that domain; ADR 0038): nothing is written.",
      ),
      ...ok("An open record of the same message existed and was updated.", body.intakeResultSchema),
      ...ok("A new record.", body.intakeResultSchema, 201),
    },
  },
  {
    method: "POST",
    route: "/api/v1/reviews/batch",
    operationId: "reportReviewBatch",
    summary: "Report up to 500 records",
    description:
      "Each item is validated on its own: valid ones are recorded, invalid ones answered with their 400 in `results`, and a scoped token's items of kinds outside its domain with their 403 (`outside-domain`, ADR 0029); a scoped token's items landing on another domain's record (403 `outside-domain` naming `message.id`) or naming another domain's key (409 `key-in-other-domain`) likewise (ADR 0038).",
    tag: "Review records",
    access: { kind: "permission", permission: "reviews.report" },
    body: batchSchema,
    answers: ok("A result per item, in order.", body.batchResultSchema),
  },
  {
    method: "GET",
    route: "/api/v1/reviews/stats",
    operationId: "getReviewStats",
    summary: "Counts by status, category and reason",
    tag: "Review records",
    access: { kind: "permission", permission: "reviews.read" },
    answers: ok("The counts and the age of the oldest open record.", body.reviewStatsSchema),
  },
  {
    method: "GET",
    route: "/api/v1/reviews/count",
    operationId: "countReviews",
    summary: "How many records a filter selects",
    description:
      "The list's filters (no page). Up to 10,000 unless `exact=true`: past it, `more` is true and `count` is 10,000.",
    tag: "Review records",
    access: { kind: "permission", permission: "reviews.read" },
    query: reviewCountQuerySchema,
    answers: ok("The count.", body.reviewCountSchema),
  },
  {
    method: "GET",
    route: "/api/v1/reviews/groups",
    operationId: "listReviewGroups",
    summary: "Records grouped by cause",
    description:
      "Kind + reason + error class, largest first, at most 200 groups. Without `status`, the active statuses.",
    tag: "Review records",
    access: { kind: "permission", permission: "reviews.read" },
    query: groupsQuerySchema,
    answers: ok("The groups.", body.reviewGroupsSchema),
  },
  {
    method: "GET",
    route: "/api/v1/reviews/[id]",
    operationId: "getReview",
    summary: "One record",
    description:
      "Its fields, its message exactly as received, revisions, history, replays, journal and sequence state.",
    tag: "Review records",
    access: { kind: "permission", permission: "reviews.read" },
    params: recordId,
    answers: {
      ...ok("The record.", body.reviewDetailSchema),
      404: error(
        "No record with this id. A finished record taken out by `review-console archive` answers code `review-archived`, its message naming the month and file, and `archived: {month, files, archivedAt}`.",
      ),
    },
  },
  {
    method: "POST",
    route: "/api/v1/reviews/[id]/actions",
    operationId: "actOnReview",
    summary: "Act on a record",
    description:
      "replay, correct-and-replay, cancel, confirm-applied, confirm-not-applied, skip-gap or note; which fits which record is the action matrix of docs/contract.md. Also run-now, reschedule (`runAt`) and unschedule of a scheduled replay, and assign (`assignee`; null unassigns): docs/decisions/0028-assignment-and-scheduled-replays.md.",
    tag: "Review records",
    access: {
      kind: "permission",
      permission: "reviews.act",
      also: "Each action needs its own too: replay, correct-and-replay, cancel, skip-gap, run-now, reschedule and unschedule `reviews.resolve` (owner); confirm-applied and confirm-not-applied `reviews.confirm` (support, owner); note `reviews.note`; assign `reviews.assign` (owner, support).",
    },
    params: recordId,
    body: actionRequestSchema,
    answers: {
      ...ok("The record as it now is.", body.reviewDetailSchema),
      ...ok(
        "An approval policy holds the action back (cancel, confirm-applied, skip-gap): nothing ran; it waits as this approval request for another person (docs/decisions/0031-four-eyes-approvals.md).",
        body.approvalAnswerBodySchema,
        202,
      ),
      404: error("No record with this id."),
      409: {
        description:
          "`expectedVersion` is stale or the action does not fit the record's state (or a decision on the record waits for approval, `approval-pending` naming the request: only a note or an assignment goes beside it; or, for an identity scoped to domains, the record's `effectKey` or `sequenceKey` is named by a record of a domain it may not act in, `key-in-other-domain`, ADR 0038); `record` is the record as it is now.",
        content: json(body.actionConflictSchema),
      },
      422: error(
        "A corrected payload fails the kind's schema, or the envelope changes a field it may only add; or `assignee` names nobody, a person who cannot act on records, or a disabled person.",
      ),
    },
  },
  {
    method: "POST",
    route: "/api/v1/reviews/[id]/verdict",
    operationId: "judgeReviewReplay",
    summary: "The contract's verdict for a record's replay, before it runs",
    description:
      "What `decide` would say if the record's replay (`replay`: its latest version) or a correction's (`correct-and-replay`: `payload` and missing `envelope` fields, built as the action builds them) ran now, judged exactly as a bulk operation's dry run judges a record: would-apply, would-suppress, would-hold-gap, would-hold-stale, would-hold-unknown, would-wait, invalid or not-eligible, and why. Changes nothing.",
    tag: "Review records",
    access: { kind: "permission", permission: "reviews.act" },
    params: recordId,
    body: verdictRequestSchema,
    answers: {
      ...ok("The verdict, and the record's version it was computed for.", recordVerdictSchema),
      404: error("No record with this id."),
    },
  },
  {
    method: "GET",
    route: "/api/v1/overview",
    operationId: "getOverview",
    summary: "The overview: arrivals, open records, time to resolution, operations in flight",
    description:
      "Arrivals per hour (24h) or day (7d, 30d) by category, reason and kind; open records by category; the oldest open record; time to resolution (p50/p95) per cause; live bulk operations.",
    tag: "Review records",
    access: { kind: "permission", permission: "reviews.read" },
    query: overviewQuerySchema,
    answers: ok("The overview of the window.", body.overviewSchema),
  },
  {
    method: "GET",
    route: "/api/v1/assignees",
    operationId: "listAssignees",
    summary: "People a record can be assigned to",
    description: "Owners and support who are not disabled, by email: the choices of the `assign` action.",
    tag: "Review records",
    access: { kind: "permission", permission: "reviews.assign" },
    answers: ok("The people.", body.assigneeListSchema),
  },
];

const REPLAYS: ApiOperation[] = [
  {
    method: "POST",
    route: "/api/v1/replays/claim",
    operationId: "claimReplays",
    summary: "Claim due replays",
    description:
      "Each replay is claimed by one consumer at a time, for `leaseSeconds`; an abandoned claim becomes claimable again.",
    tag: "Replays",
    access: { kind: "permission", permission: "replays.claim" },
    body: claimSchema,
    answers: ok("The claimed replays (none when nothing is due).", body.claimedReplaysSchema),
  },
  {
    method: "POST",
    route: "/api/v1/replays/renew",
    operationId: "renewReplayClaims",
    summary: "Keep claimed replays while working on them",
    description:
      "Extends the live claims this actor holds under `consumer` by `leaseSeconds` from now, so a slow but live consumer keeps them; a claim that already ran out is not renewed.",
    tag: "Replays",
    access: { kind: "permission", permission: "replays.claim" },
    body: renewSchema,
    answers: ok("The renewed claims.", body.renewedClaimsSchema),
  },
  {
    method: "POST",
    route: "/api/v1/replays/[replayId]/outcome",
    operationId: "reportReplayOutcome",
    summary: "Report what a replay did",
    description: "Accepted only from the actor whose claim holds the replay.",
    tag: "Replays",
    access: { kind: "permission", permission: "replays.claim" },
    params: replayId,
    body: outcomeSchema,
    answers: {
      ...ok("The outcome was recorded.", body.outcomeResultSchema),
      403: error("Another actor holds the claim (`not-claim-holder`), or the role may not claim replays."),
      404: error("No replay with this id."),
      409: error("The replay is not claimed (`not-claimed`)."),
    },
  },
];

const AUDIT: ApiOperation[] = [
  {
    method: "GET",
    route: "/api/v1/audit",
    operationId: "listDecisions",
    summary: "Read the decision log",
    description: "Newest first (by `seq`), keyset pagination; filters combine (AND).",
    tag: "Decision log",
    access: { kind: "permission", permission: "audit.read" },
    query: auditListQuerySchema,
    answers: ok("A page of entries.", body.auditPageSchema),
  },
  {
    method: "GET",
    route: "/api/v1/audit/export",
    operationId: "exportDecisions",
    summary: "Export the decision log",
    description: "Streamed, oldest first, as the log was when the export started.",
    tag: "Decision log",
    access: { kind: "permission", permission: "audit.read" },
    query: auditExportQuerySchema,
    answers: {
      200: {
        description: "The entries, one per line (`ndjson`) or one per row after a header row (`csv`).",
        content: { "application/x-ndjson": z.string(), "text/csv": z.string() },
        headers: z.object({
          "content-disposition": z
            .string()
            .meta({ description: '`attachment; filename="decision-log-<YYYY-MM-DD>.<ndjson|csv>"`' }),
        }),
      },
    },
  },
  {
    method: "GET",
    route: "/api/v1/audit/verification",
    operationId: "verifyDecisionLog",
    summary: "Verify the hash chain",
    description: "Recomputes every hash and link in one snapshot: an auditor's check, not something to poll.",
    tag: "Decision log",
    access: { kind: "permission", permission: "audit.read" },
    answers: ok("`ok`, or the first broken entry and what is wrong with it.", body.verificationSchema),
  },
];

const OPERATIONS: ApiOperation[] = [
  {
    method: "GET",
    route: "/api/v1/operations",
    operationId: "listOperations",
    summary: "List bulk operations",
    description: "Newest first, keyset pagination.",
    tag: "Operations",
    access: { kind: "permission", permission: "operations.read" },
    query: operationListQuerySchema,
    answers: ok("A page of operations.", body.operationListSchema),
  },
  {
    method: "POST",
    route: "/api/v1/operations",
    operationId: "createOperation",
    summary: "Create a bulk operation",
    description:
      "Freezes the selection into a planned operation; nothing is dispatched before a dry run and a confirm.",
    tag: "Operations",
    access: {
      kind: "permission",
      permission: "reviews.act",
      also: "A replay or cancel operation also needs `reviews.resolve` (owner); a note one `reviews.note`.",
    },
    body: createOperationSchema,
    answers: {
      ...ok("The planned operation.", body.operationSchema, 201),
      ...ok(
        "An approval policy holds the operation back (its selection has more records than the policy's count): nothing was created; it waits as this approval request for another person.",
        body.approvalAnswerBodySchema,
        202,
      ),
      409: {
        description:
          "`approval-pending`: an identical request (same action, same selection) already waits for approval; `approvalId` names it.",
        content: json(body.duplicateApprovalSchema),
      },
      422: error("The selection names unknown records, matches none, or is larger than allowed."),
    },
  },
  {
    method: "GET",
    route: "/api/v1/operations/[operationId]",
    operationId: "getOperation",
    summary: "One bulk operation",
    tag: "Operations",
    access: { kind: "permission", permission: "operations.read" },
    params: operationId,
    answers: {
      ...ok("The operation; `controls` are what the caller may do now.", body.operationSchema),
      404: error("No operation with this id."),
    },
  },
  operationControl(
    "dry-run",
    "dryRunOperation",
    "Dry-run an operation",
    emptyBodySchema,
    "What the decision would say now for each record not yet dispatched; confirm names it.",
  ),
  operationControl(
    "confirm",
    "confirmOperation",
    "Confirm an operation",
    confirmSchema,
    "Starts dispatching, naming the dry run the person reviewed.",
  ),
  operationControl(
    "pause",
    "pauseOperation",
    "Pause an operation",
    pauseSchema,
    "Stops dispatching until resumed. The reason is optional: a pause is the emergency stop.",
  ),
  operationControl(
    "resume",
    "resumeOperation",
    "Resume an operation",
    resumeSchema,
    "Carries it on (also past the canary), on the resumer's authority.",
  ),
  operationControl(
    "abort",
    "abortOperation",
    "Abort an operation",
    controlSchema,
    "Ends it; records not dispatched stay as they are.",
  ),
  {
    method: "GET",
    route: "/api/v1/operations/[operationId]/items",
    operationId: "listOperationItems",
    summary: "The records of an operation",
    description: "In dispatch order, with verdict and outcome; keyset pagination.",
    tag: "Operations",
    access: { kind: "permission", permission: "operations.read" },
    params: operationId,
    query: itemsQuerySchema,
    answers: { ...ok("A page of items.", body.operationItemsSchema), 404: error("No operation with this id.") },
  },
  {
    method: "GET",
    route: "/api/v1/operations/[operationId]/log",
    operationId: "listOperationLog",
    summary: "The decision-log entries of an operation",
    description: "Newest first, like `GET /api/v1/audit?operationId=`.",
    tag: "Operations",
    access: { kind: "permission", permission: "audit.read" },
    params: operationId,
    query: operationLogQuerySchema,
    answers: { ...ok("A page of entries.", body.auditPageSchema), 404: error("No operation with this id.") },
  },
  {
    method: "GET",
    route: "/api/v1/operations/auto-replay",
    operationId: "listAutoReplay",
    summary: "Automatic replay of ready records, per kind",
    tag: "Operations",
    access: { kind: "permission", permission: "operations.read" },
    answers: ok("Every known kind and every kind with a setting.", body.autoReplayListSchema),
  },
  {
    method: "PUT",
    route: "/api/v1/operations/auto-replay/[kind]",
    operationId: "setAutoReplay",
    summary: "Turn automatic replay of a kind on or off",
    tag: "Operations",
    access: { kind: "permission", permission: "reviews.resolve" },
    params: kind,
    body: autoReplaySwitchSchema,
    answers: { ...ok("The kind's setting as it now is.", body.kindAutoReplaySchema), 404: error("No such kind.") },
  },
];

const ME: ApiOperation[] = [
  {
    method: "GET",
    route: "/api/v1/me/preferences",
    operationId: "getPreferences",
    summary: "Your settings",
    description: "The signed-in person's settings: the zone the console shows and reads times in.",
    tag: "People and tokens",
    access: {
      kind: "permission",
      permission: "preferences.own",
      also: "A person only (`403 person-required` for a token).",
    },
    answers: ok("The settings.", body.preferencesAnswerSchema),
  },
  {
    method: "PUT",
    route: "/api/v1/me/preferences",
    operationId: "setPreferences",
    summary: "Change your settings",
    description: "Kept with the person's account: every page they open shows and reads times in the zone chosen here.",
    tag: "People and tokens",
    access: {
      kind: "permission",
      permission: "preferences.own",
      also: "A person only (`403 person-required` for a token).",
    },
    body: preferencesSchema,
    answers: ok("The settings as they now are.", body.preferencesAnswerSchema),
  },
];

const PEOPLE_AND_TOKENS: ApiOperation[] = [
  {
    method: "GET",
    route: "/api/v1/people",
    operationId: "listPeople",
    summary: "Everyone who signs in",
    tag: "People and tokens",
    access: { kind: "permission", permission: "users.manage" },
    answers: ok("People by email.", body.peopleListSchema),
  },
  {
    method: "POST",
    route: "/api/v1/people",
    operationId: "invitePerson",
    summary: "Invite a person",
    description: "The one-time link to set a password is in this answer only.",
    tag: "People and tokens",
    access: { kind: "permission", permission: "users.manage" },
    body: inviteSchema,
    answers: {
      ...ok("The invited person and their link.", body.invitedSchema, 201),
      404: error("No such domain (`domain`, ADR 0029)."),
      409: error("The email is taken (`email-taken`)."),
      422: error("`admin` given with a domain (`global-role`): an admin manages every domain."),
    },
  },
  {
    method: "POST",
    route: "/api/v1/people/[userId]/disable",
    operationId: "disablePerson",
    summary: "Disable a person",
    description: "No more sign-ins; their sessions end now; what ran on their authority pauses.",
    tag: "People and tokens",
    access: { kind: "permission", permission: "users.manage" },
    params: userId,
    body: reasonOnlySchema,
    answers: {
      ...ok("The person, the sessions ended and what paused.", body.personChangedSchema),
      ...personErrors("Already disabled (`already-disabled`)."),
      422: error("Nobody may disable themselves (`own-account`)."),
    },
  },
  {
    method: "POST",
    route: "/api/v1/people/[userId]/enable",
    operationId: "enablePerson",
    summary: "Enable a person again",
    tag: "People and tokens",
    access: { kind: "permission", permission: "users.manage" },
    params: userId,
    body: reasonOnlySchema,
    answers: { ...ok("The person.", body.personEnabledSchema), ...personErrors("Not disabled (`not-disabled`).") },
  },
  {
    method: "POST",
    route: "/api/v1/people/[userId]/role",
    operationId: "setPersonRole",
    summary: "Give a person another role",
    description: "Their sessions end now; what ran on their authority and the new role may not do pauses.",
    tag: "People and tokens",
    access: { kind: "permission", permission: "users.manage" },
    params: userId,
    body: setRoleSchema,
    answers: {
      ...ok("The person, the sessions ended and what paused.", body.personChangedSchema),
      ...personErrors("They have this role already (`same-role`)."),
      422: error("Nobody may change their own role (`own-account`)."),
    },
  },
  {
    method: "POST",
    route: "/api/v1/people/[userId]/password-link",
    operationId: "resetPersonPassword",
    summary: "Reset a person's password",
    description: "The old password stops working, sessions end; a new one-time link is in this answer only.",
    tag: "People and tokens",
    access: { kind: "permission", permission: "users.manage" },
    params: userId,
    body: reasonOnlySchema,
    answers: {
      ...ok("The person, the sessions ended and the link.", body.passwordResetSchema),
      ...personErrors("The person is disabled (`disabled`)."),
    },
  },
  {
    method: "GET",
    route: "/api/v1/tokens",
    operationId: "listTokens",
    summary: "Every API token",
    description: "Working ones first; never the tokens themselves.",
    tag: "People and tokens",
    access: { kind: "permission", permission: "users.manage" },
    answers: ok("The tokens.", body.tokenListSchema),
  },
  {
    method: "POST",
    route: "/api/v1/tokens",
    operationId: "issueToken",
    summary: "Issue an API token",
    description: "`secret` is the token, shown this once; only its hash is kept.",
    tag: "People and tokens",
    access: { kind: "permission", permission: "users.manage" },
    body: createTokenSchema,
    answers: {
      ...ok("The token and its secret.", body.tokenIssuedSchema, 201),
      404: error("No such domain (`domain`, ADR 0029)."),
      409: error("A working token has this name (`name-taken`)."),
      422: error("`admin` given with a domain (`global-role`): an admin manages every domain."),
    },
  },
  {
    method: "POST",
    route: "/api/v1/tokens/[tokenId]/revoke",
    operationId: "revokeToken",
    summary: "Revoke an API token",
    description: "The token is a 401 from now on; what ran on its authority pauses.",
    tag: "People and tokens",
    access: { kind: "permission", permission: "users.manage" },
    params: tokenId,
    body: revokeTokenSchema,
    answers: {
      ...ok("The token and what paused.", body.tokenRevokedSchema),
      404: error("No token with this id."),
      409: error("Already revoked (`already-revoked`)."),
    },
  },
];

// Domains and grants (docs/decisions/0029-domains.md).
const DOMAINS: ApiOperation[] = [
  {
    method: "GET",
    route: "/api/v1/domains",
    operationId: "listDomains",
    summary: "Every domain",
    description: "Its kinds, who holds a role in it, and the working tokens scoped to it.",
    tag: "Domains",
    access: { kind: "permission", permission: "users.manage" },
    answers: ok("Domains by name.", body.domainListSchema),
  },
  {
    method: "POST",
    route: "/api/v1/domains",
    operationId: "createDomain",
    summary: "Add a domain",
    description: "A pattern is a kind (`card.charge`) or a prefix (`invoice.*`); the most specific pattern decides.",
    tag: "Domains",
    access: { kind: "permission", permission: "users.manage" },
    body: createDomainSchema,
    answers: {
      ...ok("The domain.", body.domainCreatedSchema, 201),
      409: error("The name is taken (`domain-exists`), or another domain owns a pattern (`pattern-taken`)."),
    },
  },
  {
    method: "PUT",
    route: "/api/v1/domains/[name]",
    operationId: "updateDomain",
    summary: "Change a domain's kinds or description",
    description: "Records move with their kinds at once: a record's domain is derived from its kind.",
    tag: "Domains",
    access: { kind: "permission", permission: "users.manage" },
    params: domainName,
    body: updateDomainSchema,
    answers: {
      ...ok("The domain and its kinds before.", body.domainUpdatedSchema),
      404: error("No such domain."),
      409: error("Another domain owns a pattern (`pattern-taken`), or nothing changes (`no-change`)."),
    },
  },
  {
    method: "DELETE",
    route: "/api/v1/domains/[name]",
    operationId: "removeDomain",
    summary: "Remove a domain",
    description: "Its kinds are then in no domain (global roles only).",
    tag: "Domains",
    access: { kind: "permission", permission: "users.manage" },
    params: domainName,
    body: removeDomainSchema,
    answers: {
      ...ok("What was removed.", body.domainRemovedSchema),
      404: error("No such domain."),
      409: error("People or working tokens still hold a role in it (`domain-in-use`), named in the message."),
    },
  },
  {
    method: "GET",
    route: "/api/v1/people/[userId]/grants",
    operationId: "listPersonGrants",
    summary: "A person's grants",
    tag: "Domains",
    access: { kind: "permission", permission: "users.manage" },
    params: userId,
    answers: {
      ...ok("The grants and the headline role.", body.grantListSchema),
      404: error("No person with this id."),
    },
  },
  {
    method: "POST",
    route: "/api/v1/people/[userId]/grants",
    operationId: "grantPersonRole",
    summary: "Grant a person a role, in a domain or everywhere",
    description: "Works from the person's next request (grants are read per request); sessions do not end.",
    tag: "Domains",
    access: { kind: "permission", permission: "users.manage" },
    params: userId,
    body: grantRequestSchema,
    answers: {
      ...ok("The person as they now are.", body.grantChangedSchema, 201),
      404: error("No person with this id, or no such domain."),
      409: error("They hold this grant already (`grant-exists`)."),
      422: error("Nobody may change their own grants (`own-account`)."),
    },
  },
  {
    method: "DELETE",
    route: "/api/v1/people/[userId]/grants",
    operationId: "revokePersonRole",
    summary: "Take a grant away",
    description:
      "Allowed for the last grant too: the person can then do nothing. The headline role moves to a remaining grant; what ran on their authority and may no longer pauses.",
    tag: "Domains",
    access: { kind: "permission", permission: "users.manage" },
    params: userId,
    body: grantRequestSchema,
    answers: {
      ...ok("The person as they now are.", body.grantChangedSchema),
      404: error("No person with this id, or they hold no such manual grant."),
      422: error("Nobody may change their own grants (`own-account`)."),
    },
  },
];

// Notifications (docs/decisions/0032-notifications.md): outgoing webhook endpoints, admin only.
const webhookId = z.object({ webhookId: z.string().meta({ description: "The webhook endpoint's id (a UUID)." }) });
const WEBHOOKS: ApiOperation[] = [
  {
    method: "GET",
    route: "/api/v1/webhooks",
    operationId: "listWebhooks",
    summary: "Every webhook endpoint",
    description: "With the counts of its deliveries by state; never a secret.",
    tag: "Notifications",
    access: { kind: "permission", permission: "users.manage" },
    answers: ok("The endpoints.", webhookBody.webhookListSchema),
  },
  {
    method: "POST",
    route: "/api/v1/webhooks",
    operationId: "addWebhook",
    summary: "Add a webhook endpoint",
    description:
      "`secret` signs its deliveries (Standard Webhooks), shown this once. `domain` null: every domain. " +
      "`events` absent: every event type. `reason` is required. A `url` whose host is, or resolves to, a " +
      "loopback, private, link-local, unique-local, unspecified or metadata address (in any spelling) is " +
      "refused (400 naming `url`) unless `WEBHOOK_ALLOWED_NETWORKS` allows it; each delivery checks again. " +
      "The decision log keeps the URL's scheme and host only.",
    tag: "Notifications",
    access: { kind: "permission", permission: "users.manage" },
    body: webhookDefinitionSchema,
    answers: {
      ...ok("The endpoint and its secret.", webhookBody.webhookCreatedSchema, 201),
    },
  },
  {
    method: "POST",
    route: "/api/v1/webhooks/[webhookId]/remove",
    operationId: "removeWebhook",
    summary: "Remove a webhook endpoint",
    description: "Its deliveries go with it; nothing more is sent to it. `reason` is required.",
    tag: "Notifications",
    access: { kind: "permission", permission: "users.manage" },
    params: webhookId,
    body: webhookReasonSchema,
    answers: {
      ...ok("The endpoint as it was.", webhookBody.webhookOneSchema),
      404: error("No endpoint with this id."),
    },
  },
  {
    method: "PUT",
    route: "/api/v1/webhooks/[webhookId]",
    operationId: "changeWebhook",
    summary: "Change a webhook endpoint",
    description:
      "The whole definition again, as when adding one: a field left out takes its default. Its secret, deliveries " +
      "and disabled state stay; a changed threshold is re-armed. The same checks of `url` and `domain` apply.",
    tag: "Notifications",
    access: { kind: "permission", permission: "users.manage" },
    params: webhookId,
    body: webhookDefinitionSchema,
    answers: {
      ...ok("The endpoint as it now is.", webhookBody.webhookOneSchema),
      404: error("No endpoint with this id."),
    },
  },
  ...(["disable", "enable"] as const).map((which): ApiOperation => ({
    method: "POST",
    route: `/api/v1/webhooks/[webhookId]/${which}`,
    operationId: `${which}Webhook`,
    summary: which === "disable" ? "Disable a webhook endpoint" : "Enable a webhook endpoint again",
    description:
      (which === "disable"
        ? "Nothing new is queued for it and nothing is sent; its pending deliveries wait, its history stays. "
        : "Its waiting deliveries are sent, each when due, and new events are queued for it again. ") +
      "Asking for the state it is in changes nothing. `reason` is required.",
    tag: "Notifications",
    access: { kind: "permission", permission: "users.manage" },
    params: webhookId,
    body: webhookReasonSchema,
    answers: {
      ...ok("The endpoint as it now is.", webhookBody.webhookOneSchema),
      404: error("No endpoint with this id."),
    },
  })),
  {
    method: "POST",
    route: "/api/v1/webhooks/[webhookId]/test",
    operationId: "testWebhook",
    summary: "Send a test event",
    description:
      "Queues a `webhook.test` event for this endpoint only, due now; its delivery shows whether the endpoint " +
      "accepts signed deliveries. No body.",
    tag: "Notifications",
    access: { kind: "permission", permission: "users.manage" },
    params: webhookId,
    answers: {
      ...ok("The queued delivery.", webhookBody.deliveryOneSchema, 202),
      404: error("No endpoint with this id."),
      409: error("The endpoint is disabled (`webhook-disabled`)."),
    },
  },
  {
    method: "POST",
    route: "/api/v1/webhooks/[webhookId]/deliveries/[deliveryId]/redeliver",
    operationId: "redeliverWebhookDelivery",
    summary: "Send a delivery again",
    description:
      "A failed delivery gets one more attempt now; a pending one skips the rest of its backoff. The `webhook-id` " +
      "stays the same, so a receiver that has it already recognises it. `reason` is required.",
    tag: "Notifications",
    access: { kind: "permission", permission: "users.manage" },
    params: webhookId.extend({
      deliveryId: z.string().meta({ description: "The delivery's id (its `webhook-id`, `msg_…`)." }),
    }),
    body: webhookReasonSchema,
    answers: {
      ...ok("The delivery, due now.", webhookBody.deliveryOneSchema),
      404: error("No endpoint with this id, or no such delivery of it."),
      409: error(
        "Delivered already (`already-delivered`), being sent at this moment (`delivery-in-flight`), or the endpoint is disabled (`webhook-disabled`).",
      ),
    },
  },
  {
    method: "GET",
    route: "/api/v1/webhooks/[webhookId]/deliveries",
    operationId: "listWebhookDeliveries",
    summary: "An endpoint's deliveries",
    description:
      "Newest first, each with its attempts: status and duration (or the error). The endpoint's answer is never read or kept.",
    tag: "Notifications",
    access: { kind: "permission", permission: "users.manage" },
    params: webhookId,
    query: deliveriesQuerySchema,
    answers: {
      ...ok("The deliveries.", webhookBody.deliveryListSchema),
      404: error("No endpoint with this id."),
    },
  },
];

// Saved views of the queue (docs/decisions/0047-saved-views.md): a person's own and the team's.
const viewId = z.object({ viewId: z.string().meta({ description: "The saved view's id (a UUID)." }) });
const viewAccess = {
  kind: "permission",
  permission: "views.own",
  also: "A person only (`403 person-required` for a token).",
} as const;
const viewErrors: Record<number, Answer> = {
  404: error("No saved view with this id that the caller can see (another person's private view is one)."),
};
/** A shared view of another person can be seen, not changed: the 403 says so. */
const ownerOnly = " Only its owner may: another person's shared view is a `403 not-owner`.";
const VIEWS: ApiOperation[] = [
  {
    method: "GET",
    route: "/api/v1/views",
    operationId: "listSavedViews",
    summary: "Your saved views and the team's",
    description:
      "The caller's own views by name, then the views other people shared (with the owner's name and email).",
    tag: "Saved views",
    access: viewAccess,
    answers: ok("The views.", viewBody.savedViewListSchema),
  },
  {
    method: "POST",
    route: "/api/v1/views",
    operationId: "saveView",
    summary: "Save the queue's filters and sort under a name",
    description:
      "`query` is checked by the rules of GET /api/v1/reviews and kept in one canonical form; a parameter the " +
      "queue does not take, or a value it refuses, is a 400 naming `query` and nothing is saved.",
    tag: "Saved views",
    access: viewAccess,
    body: createViewSchema,
    answers: {
      ...ok("The view.", viewBody.savedViewOneSchema, 201),
      409: error(
        "The caller has a view of this name (`name-taken`) or 50 views already (`view-limit`); both name `name`.",
      ),
    },
  },
  {
    method: "PUT",
    route: "/api/v1/views/[viewId]",
    operationId: "changeSavedView",
    summary: "Rename, re-filter, share or unshare your view",
    description: "Only the fields given change; `query` is checked as when saving." + ownerOnly,
    tag: "Saved views",
    access: viewAccess,
    params: viewId,
    body: updateViewSchema,
    answers: {
      ...ok("The view as it now is.", viewBody.savedViewOneSchema),
      ...viewErrors,
      409: error("The caller has another view of this name (`name-taken`, naming `name`)."),
    },
  },
  {
    method: "DELETE",
    route: "/api/v1/views/[viewId]",
    operationId: "deleteSavedView",
    summary: "Delete your view",
    description: "For everyone it was shared with too. No body." + ownerOnly,
    tag: "Saved views",
    access: viewAccess,
    params: viewId,
    answers: { ...ok("The view as it was.", viewBody.savedViewOneSchema), ...viewErrors },
  },
];

const approvalId = z.object({ approvalId: z.string().meta({ description: "The approval request's id (a UUID)." }) });

const approvalAnswer = (name: "approve" | "reject", operationIdText: string, summary: string, description: string) =>
  ({
    method: "POST",
    route: `/api/v1/approvals/[approvalId]/${name}`,
    operationId: operationIdText,
    summary,
    description,
    tag: "Approvals",
    access: {
      kind: "permission",
      permission: "reviews.act",
      also: "Only a person (a session, not a token), never the requester nor the person who issued the requesting token (`403 own-request`), holding the decision's permission in its domain (for an operation, in every domain of the selection frozen at approval: `403 approver-outside`; records in no domain need a global grant). The decision runs with the requester's grants as they are now; a requester who may no longer ask for it gets the request withdrawn (`409 approval-withdrawn`).",
    },
    params: approvalId,
    body: approvalAnswerSchema,
    answers: {
      ...ok("The request as it now is.", body.approvalAnswerBodySchema),
      404: error("No approval request with this id."),
      409: error(
        "Already answered (`already-decided`), expired (`approval-expired`), or the decision could not run and the request is now `failed` (`approval-stale`: the record changed; `approval-failed`), or withdrawn because the requester may no longer ask for it (`approval-withdrawn`: disabled, revoked, or without the grant now).",
      ),
    },
  }) satisfies ApiOperation;

const APPROVALS: ApiOperation[] = [
  {
    method: "GET",
    route: "/api/v1/approvals",
    operationId: "listApprovals",
    summary: "Approval requests",
    description:
      "Newest first (at most 200); `status` defaults to `pending`. Requests past their expiry are marked `expired` first.",
    tag: "Approvals",
    access: { kind: "permission", permission: "reviews.read" },
    query: approvalListQuerySchema,
    answers: ok("The requests, and how many wait for the caller.", body.approvalListSchema),
  },
  approvalAnswer(
    "approve",
    "approveRequest",
    "Approve a request",
    "Runs the stored decision exactly once, as the requester, approved by the caller; both names go to the record's history and the decision log.",
  ),
  approvalAnswer("reject", "rejectRequest", "Reject a request", "Nothing but the request changes."),
  {
    method: "POST",
    route: "/api/v1/approvals/[approvalId]/withdraw",
    operationId: "withdrawRequest",
    summary: "Withdraw your own pending request",
    description:
      "The request becomes `withdrawn`; nothing of its decision runs. Logged as `approval.withdrawn` with the reason.",
    tag: "Approvals",
    access: {
      kind: "permission",
      permission: "reviews.act",
      also: "Only whoever asked (`403 not-requester`); anyone else approves or rejects it.",
    },
    params: approvalId,
    body: approvalAnswerSchema,
    answers: {
      ...ok("The request as it now is.", body.approvalAnswerBodySchema),
      404: error("No approval request with this id (or one the caller may not see)."),
      409: error("Already answered, expired or withdrawn (`already-decided`)."),
    },
  },
  {
    method: "GET",
    route: "/api/v1/approval-policies",
    operationId: "listApprovalPolicies",
    summary: "Approval policies",
    tag: "Approvals",
    access: { kind: "permission", permission: "users.manage" },
    answers: ok("Every policy, by domain (the default, null, first) and decision.", body.approvalPolicyListSchema),
  },
  {
    method: "PUT",
    route: "/api/v1/approval-policies",
    operationId: "setApprovalPolicy",
    summary: "Set an approval policy",
    description: "Creates or replaces the policy of (decision, domain); logged as `approval-policy.set`.",
    tag: "Approvals",
    access: { kind: "permission", permission: "users.manage" },
    body: policySetSchema,
    answers: ok("The policy.", body.approvalPolicyAnswerSchema),
  },
  {
    method: "POST",
    route: "/api/v1/approval-policies/remove",
    operationId: "removeApprovalPolicy",
    summary: "Remove an approval policy",
    description: "Requests already waiting stay; logged as `approval-policy.removed`.",
    tag: "Approvals",
    access: { kind: "permission", permission: "users.manage" },
    body: policyRemoveSchema,
    answers: {
      ...ok("The policies left.", body.approvalPolicyListSchema),
      404: error("No such policy."),
    },
  },
];

const SERVICE: ApiOperation[] = [
  {
    method: "GET",
    route: "/api/health",
    operationId: "getHealth",
    summary: "Whether the console can answer",
    tag: "Service",
    access: { kind: "public" },
    answers: {
      200: { description: "The database answers.", content: json(body.healthSchema) },
      503: { description: "The database does not answer.", content: json(body.healthSchema) },
    },
  },
  {
    method: "GET",
    route: "/api/metrics",
    operationId: "getMetrics",
    summary: "Prometheus metrics",
    description:
      "Open records by category and reason, oldest open age, actions by type, replays by outcome, request durations. " +
      "Counts of every domain: a token or person scoped to domains gets 403 (ADR 0030).",
    tag: "Service",
    access: { kind: "permission", permission: "metrics.read" },
    answers: {
      200: {
        description: "The Prometheus text exposition format (`text/plain; version=0.0.4`).",
        content: { "text/plain": z.string() },
      },
    },
  },
  {
    method: "GET",
    route: "/api/openapi.json",
    operationId: "getOpenApiDocument",
    summary: "This document",
    description:
      "The OpenAPI 3.1 document of the console's HTTP API, built from the schemas the handlers validate with.",
    tag: "Service",
    access: { kind: "public" },
    answers: {
      200: {
        description: "The document.",
        content: json(z.looseObject({ openapi: z.string() })),
        headers: z.object({
          etag: z.string().meta({ description: "Send it back as `If-None-Match` to get a 304." }),
          "cache-control": z.string(),
        }),
      },
      304: { description: "The document has not changed since the `If-None-Match` ETag." },
      500: error("An unexpected failure; its cause is in the server's log only."),
    },
  },
];

export const API_OPERATIONS: readonly ApiOperation[] = [
  ...REVIEWS,
  ...REPLAYS,
  ...AUDIT,
  ...OPERATIONS,
  ...PEOPLE_AND_TOKENS,
  ...ME,
  ...VIEWS,
  ...DOMAINS,
  ...WEBHOOKS,
  ...APPROVALS,
  ...SERVICE,
  ...BETTER_AUTH_OPERATIONS,
];

export const TAGS = [
  { name: "Review records", description: "What consumers report, and what people do with it." },
  { name: "Replays", description: "How consumers take replays and report their outcomes." },
  { name: "Decision log", description: "The append-only, hash-chained log of every decision." },
  {
    name: "Operations",
    description: "Bulk operations and the automatic replay of ready records (docs/operations.md).",
  },
  { name: "People and tokens", description: "Who signs in and which programs hold tokens (admin)." },
  { name: "Domains", description: "Domains of message kinds and the roles granted in them (admin, ADR 0029)." },
  { name: "Notifications", description: "Outgoing webhooks and their deliveries (admin)." },
  { name: "Saved views", description: "Filters and sorts of the queue kept under a name, one's own or shared." },
  { name: "Approvals", description: "Decisions that wait for a second person, and the policies that say which." },
  { name: "Sign-in", description: "Better Auth's endpoints the console serves under /api/auth." },
  { name: "Service", description: "Health, metrics and this document." },
];
