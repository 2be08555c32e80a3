// The messages of an intake body as the text that was sent (ADR 0005: the `message` column keeps
// the message byte for byte; JSON.parse would reorder integer-like keys and round big numbers).
//
// The same spans as @review-console/contract's objectMembers/arrayElements give, found in one
// pass over the body: a batch of 500 is 200-300 kB, and walking it three times character by
// character (the records array, each element, each element's members) cost more than parsing it
// (docs/decisions/0035-intake-cost.md). Strings are skipped with indexOf, the rest read as char
// codes. The text must be JSON that JSON.parse has accepted: nothing here validates it.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

function isWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

function skipWhitespace(text: string, i: number): number {
  while (i < text.length && isWhitespace(text.charCodeAt(i))) i++;
  return i;
}

/** End (exclusive) of the string whose opening quote is at `i`. */
function stringEnd(text: string, i: number): number {
  let from = i + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) throw new Error("unterminated string");
    // Escaped when an odd number of backslashes precede it (the opening quote stops the count).
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** End (exclusive) of the value that starts at `i`. */
function valueEnd(text: string, i: number): number {
  const first = text.charCodeAt(i);
  if (first === QUOTE) return stringEnd(text, i);
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    let depth = 0;
    for (let j = i; j < text.length; j++) {
      const code = text.charCodeAt(j);
      if (code === QUOTE) j = stringEnd(text, j) - 1;
      else if (code === OPEN_BRACE || code === OPEN_BRACKET) depth++;
      else if ((code === CLOSE_BRACE || code === CLOSE_BRACKET) && --depth === 0) return j + 1;
    }
    throw new Error("unterminated container");
  }
  let j = i;
  for (; j < text.length; j++) {
    const code = text.charCodeAt(j);
    if (isWhitespace(code) || code === COMMA || code === CLOSE_BRACE || code === CLOSE_BRACKET) break;
  }
  return j;
}

/** The member key of the string at [start, end), as JSON.parse reads it. */
function keyOf(text: string, start: number, end: number): string {
  const inner = text.slice(start + 1, end - 1);
  return inner.includes("\\") ? (JSON.parse(text.slice(start, end)) as string) : inner;
}

/**
 * Walks the members of the object at `start` (after white space): `member` is called with each
 * key and where its value starts, and returns where the value ends (it may walk the value
 * itself). Returns the end of the object, or -1 when no object starts there.
 */
function walkObject(text: string, start: number, member: (key: string, from: number) => number): number {
  let i = skipWhitespace(text, start);
  if (text.charCodeAt(i) !== OPEN_BRACE) return -1;
  i = skipWhitespace(text, i + 1);
  while (text.charCodeAt(i) === QUOTE) {
    const keyEnd = stringEnd(text, i);
    const key = keyOf(text, i, keyEnd);
    i = skipWhitespace(text, skipWhitespace(text, keyEnd) + 1); // past ':'
    i = skipWhitespace(text, member(key, i));
    if (text.charCodeAt(i) !== COMMA) break;
    i = skipWhitespace(text, i + 1);
  }
  return i + 1;
}

/** The text of the `message` member of the object at `start` (the last one, as JSON.parse keeps). */
function messageIn(text: string, start: number): { message: string | undefined; end: number } {
  let message: string | undefined;
  const end = walkObject(text, start, (key, from) => {
    const to = valueEnd(text, from);
    if (key === "message") message = text.slice(from, to);
    return to;
  });
  return { message, end: end < 0 ? valueEnd(text, skipWhitespace(text, start)) : end };
}

/** The text of the top-level object's `message` member (the last one, as JSON.parse keeps). */
export function rawMessageOf(text: string): string | undefined {
  return messageIn(text, 0).message;
}

/**
 * For each element of the top-level object's `records` array (the last `records`, as JSON.parse
 * keeps), the text of its `message` member: undefined for an element that is no object or has
 * none. The array is walked once, element by element.
 */
export function rawMessagesOfRecords(text: string): (string | undefined)[] {
  let messages: (string | undefined)[] = [];
  walkObject(text, 0, (key, from) => {
    if (key !== "records" || text.charCodeAt(from) !== OPEN_BRACKET) {
      if (key === "records") messages = [];
      return valueEnd(text, from);
    }
    messages = [];
    let i = skipWhitespace(text, from + 1);
    while (text.charCodeAt(i) !== CLOSE_BRACKET) {
      const element = messageIn(text, i);
      messages.push(element.message);
      i = skipWhitespace(text, element.end);
      if (text.charCodeAt(i) !== COMMA) break;
      i = skipWhitespace(text, i + 1);
    }
    return i + 1;
  });
  return messages;
}
