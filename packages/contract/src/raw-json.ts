// Locates values inside JSON text that JSON.parse has already accepted, so a received message can
// be stored as the exact text that was sent: JSON.parse moves integer-like keys to the front of
// an object and rounds numbers beyond double precision, which would change the evidence.

export type Span = readonly [start: number, end: number];

const WS = new Set([" ", "\t", "\n", "\r"]);

function skipWs(text: string, i: number): number {
  while (i < text.length && WS.has(text[i]!)) i++;
  return i;
}

function stringEnd(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    if (text[j] === "\\") j++;
    else if (text[j] === '"') return j + 1;
  }
  throw new Error("unterminated string");
}

/** End (exclusive) of the value that starts at `i`. */
function valueEnd(text: string, i: number): number {
  const first = text[i];
  if (first === '"') return stringEnd(text, i);
  if (first === "{" || first === "[") {
    let depth = 0;
    for (let j = i; j < text.length; j++) {
      const c = text[j];
      if (c === '"') j = stringEnd(text, j) - 1;
      else if (c === "{" || c === "[") depth++;
      else if (c === "}" || c === "]") {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    throw new Error("unterminated container");
  }
  let j = i;
  while (j < text.length && !WS.has(text[j]!) && text[j] !== "," && text[j] !== "}" && text[j] !== "]") j++;
  return j;
}

/** The members of the object at `start`; a repeated key keeps its last value, as JSON.parse does. */
export function objectMembers(text: string, start: number): Map<string, Span> {
  const members = new Map<string, Span>();
  let i = skipWs(text, start);
  if (text[i] !== "{") return members;
  i = skipWs(text, i + 1);
  while (text[i] === '"') {
    const keyEnd = stringEnd(text, i);
    const key = JSON.parse(text.slice(i, keyEnd)) as string;
    i = skipWs(text, skipWs(text, keyEnd) + 1); // past ':'
    const end = valueEnd(text, i);
    members.set(key, [i, end]);
    i = skipWs(text, end);
    if (text[i] !== ",") break;
    i = skipWs(text, i + 1);
  }
  return members;
}

/** The elements of the array at `start`. */
export function arrayElements(text: string, start: number): Span[] {
  const elements: Span[] = [];
  let i = skipWs(text, start);
  if (text[i] !== "[") return elements;
  i = skipWs(text, i + 1);
  while (i < text.length && text[i] !== "]") {
    const end = valueEnd(text, i);
    elements.push([i, end]);
    i = skipWs(text, end);
    if (text[i] !== ",") break;
    i = skipWs(text, i + 1);
  }
  return elements;
}

export function sliceSpan(text: string, span: Span | undefined): string | undefined {
  return span ? text.slice(span[0], span[1]) : undefined;
}

/** JSON of `value` with extra members whose values are JSON text to be kept byte for byte. */
export function stringifyWithRaw(value: Record<string, unknown>, raw: Record<string, string>): string {
  const base = JSON.stringify(value);
  const extra = Object.entries(raw).map(([key, text]) => `${JSON.stringify(key)}:${text}`);
  if (extra.length === 0) return base;
  return base === "{}" ? `{${extra.join(",")}}` : `${base.slice(0, -1)},${extra.join(",")}}`;
}
