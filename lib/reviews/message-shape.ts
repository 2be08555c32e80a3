/** Deeper than any real envelope; bounds the work (and the stack) a hostile message can cost. */
export const MAX_MESSAGE_DEPTH = 64;

/**
 * What PostgreSQL or a recursive walk cannot take from a received message: nesting past
 * MAX_MESSAGE_DEPTH, and strings with an unpaired UTF-16 surrogate (no UTF-8 form exists).
 * Iterative, so a 10,000-level message costs a loop, not a stack overflow.
 */
export function messageShapeProblem(message: unknown): string | null {
  const stack: { value: unknown; depth: number }[] = [{ value: message, depth: 0 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (typeof value === "string") {
      if (!value.isWellFormed()) return "contains a string with an unpaired UTF-16 surrogate";
      continue;
    }
    if (typeof value !== "object" || value === null) continue;
    if (depth >= MAX_MESSAGE_DEPTH) return `nests deeper than ${MAX_MESSAGE_DEPTH} levels`;
    for (const [key, child] of Object.entries(value)) {
      if (!key.isWellFormed()) return "contains a key with an unpaired UTF-16 surrogate";
      stack.push({ value: child, depth: depth + 1 });
    }
  }
  return null;
}
