import type { z } from "zod";
import { type Actor, authorize } from "@/lib/access";
import { authenticate, refuseCrossSite } from "@/lib/auth";
import type { Permission } from "@/lib/access/client";
import { log } from "@/lib/log";
import { UndocumentedAnswer } from "@/lib/http/documented-status";
import type { ApiOperation } from "@/lib/openapi/operation";
import { isDatabaseUnavailable } from "@/lib/db/unavailable";
import { isUuid } from "@/lib/domain/ids";
import { Refusal } from "@/lib/domain/refusal";
import { recordForbidden, refusedRequest } from "@/lib/audit";
import { answered } from "./answered";
import { readJsonBody } from "./body";
import { validationError } from "./errors";
import { databaseUnavailableResponse, internalErrorResponse, refusalResponse } from "./refusal-response";
import { requireStorable } from "./storable";

export interface RouteContext<P> {
  request: Request;
  actor: Actor;
  params: P;
  /** The route as a pattern, `POST /api/v1/reviews/[id]/actions`: what refusals are grouped by. */
  route: string;
}

/**
 * A JSON answer that is not yet a web Response. The intake handlers give these: the intake fast
 * path (lib/server/intake-fast-path.ts) writes one to the socket as it is, where building a
 * Response and reading its body stream back cost more than the rest of the answer
 * (docs/decisions/0035-intake-cost.md); for Next, apiRoute makes it the Response.json it equals.
 */
export interface JsonAnswer {
  readonly kind: "json-answer";
  readonly status: number;
  readonly body: unknown;
}

export function jsonAnswer(body: unknown, status = 200): JsonAnswer {
  return { kind: "json-answer", status, body };
}

export type Answer = Response | JsonAnswer;

/** Recognised by shape: Next's bundle and the console server's carry a module copy each. */
export function isJsonAnswer(answer: Answer): answer is JsonAnswer {
  return (answer as Partial<JsonAnswer>).kind === "json-answer" && !(answer instanceof Response);
}

export function toResponse(answer: Answer): Response {
  return isJsonAnswer(answer) ? Response.json(answer.body, { status: answer.status }) : answer;
}

/** An operation of the API that apiRoute serves: one whose callers need a permission. */
export type RouteDefinition = ApiOperation & { access: { kind: "permission" } };

/** What a route handler carries besides itself: the operations it serves, for the OpenAPI document. */
export interface Documented {
  readonly definitions: readonly ApiOperation[];
}

/** A route handler as Next calls it, and `answer`, the same without the Response at the end. */
export type ApiHandler<P> = ((request: Request, context?: { params?: Promise<P> }) => Promise<Response>) &
  Documented & {
    answer: (request: Request, context?: { params?: Promise<P> }) => Promise<Answer>;
  };

/**
 * A handler that is not apiRoute's (public ones, Better Auth's catch-all) with the operations it
 * serves, so the OpenAPI document finds them where it finds every other route's.
 */
export function documented<H extends object>(
  definitions: ApiOperation | readonly ApiOperation[],
  handler: H,
): H & Documented {
  return Object.assign(handler, {
    definitions: Array.isArray(definitions) ? definitions : [definitions as ApiOperation],
  });
}

/**
 * Every API handler has the same shape: authenticate, authorize, then run. The route's definition
 * (method, path, permission, schemas, answers) is the first argument: the OpenAPI document is
 * built from the definitions the handlers carry, so it cannot name another permission or answer.
 * Expected refusals are Refusals, answered with their kind's status (a `forbidden` one recorded as a refused
 * authorization, here and nowhere else); a database that does not answer is a 503 with
 * Retry-After; anything else is logged and answered with a bare 500.
 * An answer its definition does not give (outside production only) is thrown, not answered: a
 * 500 would hide which status is missing from it.
 */
export function apiRoute<P = Record<string, never>>(
  definition: RouteDefinition,
  handler: (context: RouteContext<P>) => Promise<Answer>,
): ApiHandler<P> {
  const permission: Permission = definition.access.permission;
  // Refusals are grouped by route, so varying an id in the path cannot open a new window each
  // time (lib/audit/refusal-log.ts).
  const route = `${definition.method} ${definition.route}`;
  const answer = async (request: Request, context?: { params?: Promise<P> }): Promise<Answer> => {
    const started = performance.now();
    let actor: Actor | undefined;
    try {
      actor = await authenticate(request);
      refuseCrossSite(actor, request);
      const params = ((await context?.params) ?? {}) as P;
      const id = (params as { id?: unknown }).id;
      authorize(actor, permission, typeof id === "string" && isUuid(id) ? id : undefined);
      return answered(definition, started, await handler({ request, actor, params, route }));
    } catch (error) {
      if (error instanceof UndocumentedAnswer) throw error;
      try {
        if (!(error instanceof Refusal)) throw error;
        if (actor) await recordForbidden(error, refusedRequest(request, actor, route));
        return answered(definition, started, refusalResponse(error));
      } catch (failure) {
        if (failure instanceof UndocumentedAnswer) throw failure;
        if (isDatabaseUnavailable(failure)) {
          log.warn({ err: failure, method: request.method, url: request.url }, "the database does not answer");
          return answered(definition, started, databaseUnavailableResponse());
        }
        log.error({ err: failure, method: request.method, url: request.url }, "request failed");
        return answered(definition, started, internalErrorResponse());
      }
    }
  };
  const respond = async (request: Request, context?: { params?: Promise<P> }) =>
    toResponse(await answer(request, context));
  return Object.assign(respond, { answer, definitions: [definition] });
}

/**
 * The validated body, and its text for handlers that must keep part of it exactly as sent. The
 * body must also be storable (requireStorable: no unpaired surrogate, NUL or deep nesting in any
 * of its strings), except with `asReceived`: intake keeps a message as it was received (its
 * schema checks what the json column cannot hold) and its texts the way PostgreSQL takes them.
 */
export async function parseJsonBody<S extends z.ZodType>(
  request: Request,
  schema: S,
  options: { asReceived?: boolean } = {},
): Promise<{ data: z.infer<S>; text: string }> {
  const body = await readJsonBody(request);
  const result = schema.safeParse(body.value);
  if (!result.success) throw validationError(result.error);
  if (!options.asReceived) requireStorable(result.data);
  return { data: result.data, text: body.text };
}

export function parseQuery<S extends z.ZodType>(request: Request, schema: S): z.infer<S> {
  const params = Object.fromEntries(new URL(request.url).searchParams);
  const result = schema.safeParse(params);
  if (!result.success) throw validationError(result.error);
  return result.data;
}
