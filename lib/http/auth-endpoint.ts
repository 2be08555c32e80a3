import { databaseAnswers } from "@/lib/db/answers";
import { isDatabaseUnavailable } from "@/lib/db/unavailable";
import { databaseUnavailableResponse } from "@/lib/http/refusal-response";
import { authFor } from "@/lib/auth";

/**
 * Better Auth's endpoints (sign-in, sign-out, get-session, …) with the console's answer for a
 * database that does not answer: a 503 with Retry-After a browser or client retries, as every
 * other route gives (lib/http/route.ts), not the 500 Better Auth makes of any failure. Better Auth
 * keeps the error to itself, so a 500 is followed by a query: when that fails too, the cause
 * was the database.
 */
export async function answerAuthRequest(request: Request): Promise<Response> {
  let response: Response;
  try {
    response = await authFor(request).handler(request);
  } catch (error) {
    if (isDatabaseUnavailable(error)) return databaseUnavailableResponse();
    throw error;
  }
  if (response.status >= 500 && !(await databaseAnswers())) return databaseUnavailableResponse();
  return response;
}
