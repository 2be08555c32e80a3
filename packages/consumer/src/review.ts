import { messageShapeProblem, type ReviewCategory } from "@review-console/contract";
import type { ReviewDesk } from "./desk.ts";
import type { MessageBody, MessageSource } from "./types.ts";

export interface HeldOutcome {
  category: ReviewCategory;
  reason: string;
  requiredCheck: string;
  attempts: number;
  lastError?: string;
}

// The same limits the intake API enforces (lib/reviews/schema.ts), applied by cutting instead of
// refusing: a consumer must get every held message on record, however odd its text.
const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
const noNul = (text: string) => text.replaceAll("\u0000", "\uFFFD");

function storableSource(source: MessageSource) {
  return {
    transport: cut(noNul(source.transport), 100),
    ...(source.queue === undefined ? {} : { queue: cut(noNul(source.queue), 500) }),
    ...(source.consumer === undefined ? {} : { consumer: cut(noNul(source.consumer), 200) }),
    ...(source.transportId === undefined ? {} : { transportId: cut(noNul(source.transportId), 500) }),
  };
}

/**
 * The message exactly as received, in a form the `json` column takes: the parsed envelope with
 * its original text; text that is not JSON, or JSON PostgreSQL cannot store (an unpaired
 * surrogate escape, extreme nesting), as one JSON string holding the text unchanged.
 */
export function storableMessage(body: MessageBody): { message: unknown; rawMessage: string; problem: string | null } {
  if (body.parsed) {
    const problem = messageShapeProblem(body.value);
    if (problem === null) return { message: body.value, rawMessage: body.text, problem: null };
    return {
      message: body.text.toWellFormed(),
      rawMessage: JSON.stringify(body.text.toWellFormed()),
      problem: `the message ${problem}; it is kept as text`,
    };
  }
  const text = body.text.toWellFormed();
  return { message: text, rawMessage: JSON.stringify(text), problem: body.problem };
}

/**
 * Writes (or joins) the review record of a held message at the console: the message as received,
 * with the intake API's limits applied by cutting, so nothing a consumer holds is refused.
 */
export async function writeReview(
  desk: ReviewDesk,
  body: MessageBody,
  source: MessageSource,
  held: HeldOutcome,
): Promise<{ id: string; attempts: number }> {
  const stored = storableMessage(body);
  const errors = [stored.problem, held.lastError].filter((e): e is string => typeof e === "string" && e.length > 0);
  return desk.report({
    category: held.category,
    reason: cut(noNul(held.reason), 200),
    requiredCheck: cut(noNul(held.requiredCheck), 2000),
    attempts: Math.max(0, Math.min(held.attempts, 1_000_000)),
    ...(errors.length > 0 ? { lastError: cut(noNul(errors.join("; ")), 20_000) } : {}),
    source: storableSource(source),
    message: stored.message,
    rawMessage: stored.rawMessage,
  });
}
