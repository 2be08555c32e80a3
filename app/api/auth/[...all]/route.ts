import { toNextJsHandler } from "better-auth/next-js";
import { answerAuthRequest } from "@/lib/http/auth-endpoint";
import { documented } from "@/lib/http/route";
import { BETTER_AUTH_OPERATIONS } from "@/lib/openapi/better-auth";

// Better Auth's endpoints (sign-in/email, sign-out, get-session, ...). The instance is made on
// the first request, never at import: `next build` loads this module with no database.
// One function serves every method: each export is a function of its own, carrying its operations.
const { GET: handler } = toNextJsHandler(answerAuthRequest);
const served = (method: string) =>
  documented(
    BETTER_AUTH_OPERATIONS.filter((operation) => operation.method === method),
    (request: Request) => handler(request),
  );

export const GET = served("GET");
export const POST = served("POST");
export const PATCH = served("PATCH");
export const PUT = served("PUT");
export const DELETE = served("DELETE");
