import { z } from "zod";
import { PERMISSIONS, type Permission } from "@/lib/access/client";
import { errorBodySchema } from "./responses";

// What one operation of the OpenAPI document says (each route.ts gives its own to apiRoute), and the
// answers every operation of its sort has besides its own: apiRoute's 401, 403 and 500, the
// 400 of any input, the 413 and 415 of a JSON body. The document and the check of every answer
// (./documented-status.ts) both read documentedAnswers, so they cannot disagree.

export const HTTP_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export type Access =
  /** Anyone, signed in or not. */
  | { kind: "public" }
  /** apiRoute: a bearer token or the session cookie, whose role must have the permission. */
  | { kind: "permission"; permission: Permission; also?: string }
  /** Better Auth's own endpoints that need the session cookie. */
  | { kind: "session" };

export interface Answer {
  description: string;
  /** Media type -> schema; a JSON body is `{"application/json": schema}`. None: no body. */
  content?: Record<string, z.ZodType>;
  headers?: z.ZodObject;
}

export interface ApiOperation {
  method: HttpMethod;
  /** The route of app/ that serves it, as matchRoute names it (`/api/v1/reviews/[id]/actions`). */
  route: string;
  /** The OpenAPI path, when the route is a catch-all serving several (Better Auth's). */
  path?: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  access: Access;
  /** Path parameters, for the document: the handlers read them from the path themselves. */
  params?: z.ZodObject;
  /** The schema the handler validates its query string with (parseQuery). */
  query?: z.ZodType;
  /** The schema the handler validates its JSON body with (parseJsonBody). */
  body?: z.ZodType;
  /** Its own answers: its successes and the refusals particular to it. */
  answers: Record<number, Answer>;
}

export const json = (schema: z.ZodType): Record<string, z.ZodType> => ({ "application/json": schema });

/** A refusal with the API's error body. */
export const errorAnswer = (description: string): Answer => ({ description, content: json(errorBodySchema) });
const error = errorAnswer;

const retryAfterHeaders = z.object({
  "retry-after": z.string().meta({ description: "Seconds to wait before asking again." }),
});

/** The answers an operation has by its sort; its own `answers` may describe them more closely. */
function commonAnswers(operation: ApiOperation): Record<number, Answer> {
  const common: Record<number, Answer> = {};
  if (operation.params || operation.query || operation.body) {
    // proxy.ts refuses a path segment Next could not decode, before any handler runs.
    const path = operation.params ? " A path segment that is not valid percent-encoded UTF-8 names its parameter." : "";
    common[400] = error(`Invalid input: the message and \`issues\` name the field.${path}`);
  }
  if (operation.body) {
    common[413] = error("The body is larger than the limit (1 MiB unless MAX_BODY_BYTES says otherwise).");
    common[415] = error("The body is not declared `Content-Type: application/json`.");
  }
  if (operation.access.kind === "permission") {
    common[401] = error("No credentials, a malformed one, or an unknown, revoked or expired token or session.");
    common[403] = error(
      "The role may not do this (the refusal is written to the decision log), or a signed-in request that changes something came from another site (`cross-site`).",
    );
    common[500] = error("An unexpected failure; its cause is in the server's log only.");
    common[503] = {
      ...error(
        "The database does not answer (restarting, failing over, out of connections): nothing was changed; ask again after `Retry-After` seconds.",
      ),
      headers: retryAfterHeaders,
    };
  }
  return common;
}

/** Every answer the operation documents, by status. */
export function documentedAnswers(operation: ApiOperation): Record<number, Answer> {
  return { ...commonAnswers(operation), ...operation.answers };
}

/** `/api/v1/reviews/[id]` -> `/api/v1/reviews/{id}`. */
export function openApiPath(route: string): string {
  return route.replace(/\[(?:\.\.\.)?([^\]]+)\]/g, "{$1}");
}

/** Who may call it, in words: the description of the operation starts with it. */
export function accessText(access: Access): string {
  if (access.kind === "public") return "Public: no sign-in or token needed.";
  if (access.kind === "session") return "Needs the session cookie of a signed-in person.";
  const roles = PERMISSIONS[access.permission].join(", ");
  const also = access.also ? ` ${access.also}` : "";
  return `Roles: ${roles} (permission \`${access.permission}\`), by bearer token or session cookie.${also}`;
}
