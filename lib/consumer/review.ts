import type { Actor } from "@/lib/auth/actor";
import type { ReviewCategory } from "@/lib/contract/decide";
import { intakeReports } from "@/lib/reviews/intake";
import { messageShapeProblem } from "@/lib/reviews/message-shape";
import type { MessageBody, MessageSource } from "./types";

/** The actor a consumer writes as: a token-like identity with the `consumer` role. */
export function consumerActor(name: string): Actor {
  return { kind: "token", id: `consumer:${name}`, label: `consumer:${name}`, role: "consumer" };
}

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

/** Writes (or joins) the review record of a held message through the intake API's own statement. */
export async function writeReview(
  actor: Actor,
  body: MessageBody,
  source: MessageSource,
  held: HeldOutcome,
): Promise<{ id: string; attempts: number }> {
  const stored = storableMessage(body);
  const errors = [stored.problem, held.lastError].filter((e): e is string => typeof e === "string" && e.length > 0);
  const [result] = await intakeReports(
    [
      {
        input: {
          category: held.category,
          reason: cut(noNul(held.reason), 200),
          requiredCheck: cut(noNul(held.requiredCheck), 2000),
          attempts: Math.max(0, Math.min(held.attempts, 1_000_000)),
          ...(errors.length > 0 ? { lastError: cut(noNul(errors.join("; ")), 20_000) } : {}),
          source: storableSource(source),
          message: stored.message,
        },
        rawMessage: stored.rawMessage,
      },
    ],
    actor,
  );
  if (!result) throw new Error("intake returned no record");
  return { id: result.id, attempts: result.attempts };
}
