import { shapeProblem } from "@review-console/contract";
import { Refusal } from "@/lib/domain/refusal";

/**
 * A request body that is stored as it comes (reasons, references, corrected payloads, details
 * in jsonb) must be something PostgreSQL can hold: no unpaired surrogate, no NUL, no nesting
 * past MAX_MESSAGE_DEPTH (beyond that Prisma's and PostgreSQL's own recursion gives out). Checked
 * on the validated body, so the 400 names the field that holds it, like every validation error.
 */
export function requireStorable(body: unknown): void {
  const problem = shapeProblem(body, { nul: true });
  if (!problem) return;
  const path = problem.path || "body";
  throw new Refusal("invalid", "invalid-request", `${path}: ${problem.message}`, {
    issues: [{ path: problem.path, message: problem.message }],
  });
}
