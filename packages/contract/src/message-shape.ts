/** Deeper than any real envelope; bounds the work (and the stack) a hostile message can cost. */
export const MAX_MESSAGE_DEPTH = 64;

export interface ShapeProblem {
  /** Where, as issue paths name it (`payload.items.0`); "" for the value itself. */
  path: string;
  message: string;
}

/**
 * What PostgreSQL or a recursive walk cannot take from a JSON value: nesting past
 * MAX_MESSAGE_DEPTH, strings or keys with an unpaired UTF-16 surrogate (no UTF-8 form exists),
 * and with `nul`, NUL characters (jsonb and text refuse them; the json type keeps them escaped).
 * Iterative, so a 100,000-level value costs a loop, not a stack overflow.
 */
export function shapeProblem(value: unknown, options: { nul: boolean }): ShapeProblem | null {
  const stack: { value: unknown; depth: number; path: string }[] = [{ value, depth: 0, path: "" }];
  const join = (path: string, key: string) => (path ? `${path}.${key}` : key);
  while (stack.length > 0) {
    const { value, depth, path } = stack.pop()!;
    if (typeof value === "string") {
      if (!value.isWellFormed()) return { path, message: "contains a string with an unpaired UTF-16 surrogate" };
      if (options.nul && value.includes("\u0000")) return { path, message: "must not contain NUL characters" };
      continue;
    }
    if (typeof value !== "object" || value === null) continue;
    if (depth >= MAX_MESSAGE_DEPTH) return { path, message: `nests deeper than ${MAX_MESSAGE_DEPTH} levels` };
    for (const [key, child] of Object.entries(value)) {
      if (!key.isWellFormed()) return { path, message: "contains a key with an unpaired UTF-16 surrogate" };
      if (options.nul && key.includes("\u0000")) return { path, message: "contains a key with a NUL character" };
      stack.push({ value: child, depth: depth + 1, path: join(path, key) });
    }
  }
  return null;
}

/** For a message as received (kept as json text, where NUL stays escaped): the problem, or null. */
export function messageShapeProblem(message: unknown): string | null {
  return shapeProblem(message, { nul: false })?.message ?? null;
}
