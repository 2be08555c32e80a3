import { z } from "zod";
import { approvalAnswerSchema } from "@/lib/approvals";
import { responseSchemas as webhookBody, webhookReasonSchema } from "@/lib/notifications";
import { type Answer, type ApiOperation, errorAnswer, json } from "./operation";
import * as responses from "./responses";

// What the definitions of several routes share (each route's own lives in its route.ts, given
// to apiRoute): the path parameters, the usual success answer, and the pieces of route families
// (people, saved views, approvals, webhook switches) that would otherwise be written twice.

export { json };
export const error = errorAnswer;

/** `{status: {description, content: json(schema)}}`: the one success answer most routes have. */
export const ok = (description: string, schema: z.ZodType, status = 200): Record<number, Answer> => ({
  [status]: { description, content: json(schema) },
});

export const recordIdParams = z.object({
  id: z.string().meta({ description: "The record's id (a UUID; anything else is a 404)." }),
});
export const operationIdParams = z.object({
  operationId: z.string().meta({ description: "The operation's id (a UUID; anything else is a 404)." }),
});
export const userIdParams = z.object({ userId: z.string().meta({ description: "The person's id." }) });
export const tokenIdParams = z.object({ tokenId: z.string().meta({ description: "The token's id (a UUID)." }) });
export const domainNameParams = z.object({
  name: z.string().meta({ description: "The domain's name (`payments`)." }),
});
export const replayIdParams = z.object({ replayId: z.string().meta({ description: "The replay's id (a UUID)." }) });
export const kindParams = z.object({
  kind: z.string().meta({ description: "The message kind, 1 to 200 characters." }),
});
export const webhookIdParams = z.object({
  webhookId: z.string().meta({ description: "The webhook endpoint's id (a UUID)." }),
});
export const viewIdParams = z.object({ viewId: z.string().meta({ description: "The saved view's id (a UUID)." }) });
export const approvalIdParams = z.object({
  approvalId: z.string().meta({ description: "The approval request's id (a UUID)." }),
});

/** The person actions of /api/v1/people/{userId}/*: unknown person 404, a rule of the change 409. */
export const personErrors = (conflict: string): Record<number, Answer> => ({
  404: error("No person with this id."),
  409: error(conflict),
});

// Saved views of the queue (docs/decisions/0047-saved-views.md): a person's own and the team's.
export const viewAccess = {
  kind: "permission",
  permission: "views.own",
  also: "A person only (`403 person-required` for a token).",
} as const;
export const viewErrors: Record<number, Answer> = {
  404: error("No saved view with this id that the caller can see (another person's private view is one)."),
};
/** A shared view of another person can be seen, not changed: the 403 says so. */
export const ownerOnly = " Only its owner may: another person's shared view is a `403 not-owner`.";

/** POST /api/v1/approvals/{approvalId}/approve and /reject. */
export const approvalAnswer = (
  name: "approve" | "reject",
  operationIdText: string,
  summary: string,
  description: string,
) =>
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
    params: approvalIdParams,
    body: approvalAnswerSchema,
    answers: {
      ...ok("The request as it now is.", responses.approvalAnswerBodySchema),
      404: error("No approval request with this id."),
      409: error(
        "Already answered (`already-decided`), expired (`approval-expired`), or the decision could not run and the request is now `failed` (`approval-stale`: the record changed; `approval-failed`), or withdrawn because the requester may no longer ask for it (`approval-withdrawn`: disabled, revoked, or without the grant now).",
      ),
    },
  }) satisfies ApiOperation;

/** POST /api/v1/webhooks/{webhookId}/disable and /enable. */
export const webhookSwitch = (which: "disable" | "enable") =>
  ({
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
    params: webhookIdParams,
    body: webhookReasonSchema,
    answers: {
      ...ok("The endpoint as it now is.", webhookBody.webhookOneSchema),
      404: error("No endpoint with this id."),
    },
  }) satisfies ApiOperation;
