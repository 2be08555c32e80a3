import pg from "pg";

// A statement a local handler queues runs in the same multi-statement query as the runtime's
// bookkeeping and the COMMIT (one round trip). Such a query cannot carry parameters, so they are
// written into the text as quoted literals: the same text node-postgres would send for a
// parameter, quoted by its own escapeLiteral. A quoted literal is of type `unknown` to PostgreSQL,
// as an untyped parameter is, so the statement means the same.

/** The text of a parameter value, as node-postgres would send it (null for SQL NULL). */
function parameterText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean") return String(value);
  if (value instanceof Date) return value.toISOString();
  if (Buffer.isBuffer(value)) return `\\x${value.toString("hex")}`;
  if (Array.isArray(value)) return arrayText(value);
  return JSON.stringify(value);
}

function arrayText(values: unknown[]): string {
  const items = values.map((v) => {
    if (Array.isArray(v)) return arrayText(v);
    const text = parameterText(v);
    return text === null ? "NULL" : `"${text.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
  });
  return `{${items.join(",")}}`;
}

export function literal(value: unknown): string {
  const text = parameterText(value);
  if (text === null) return "NULL";
  if (text.includes("\u0000")) throw new Error("a parameter contains a NUL character, which PostgreSQL cannot store");
  return pg.escapeLiteral(text);
}

const identifierChar = /[A-Za-z0-9_$\u0080-\uFFFF]/;

/**
 * `text` with each placeholder $1, $2, ... replaced by its parameter as a literal. Placeholders
 * inside quoted strings, quoted identifiers, comments and dollar-quoted bodies are left alone.
 */
export function inlineParameters(text: string, params: readonly unknown[] = []): string {
  let out = "";
  let i = 0;
  const used = new Set<number>();
  while (i < text.length) {
    const c = text[i]!;
    const next = text[i + 1];
    let end = i + 1;
    if (c === "'") {
      // '...' with '' inside; E'...' also takes backslash escapes.
      const escapes = i > 0 && (text[i - 1] === "E" || text[i - 1] === "e") && !identifierChar.test(text[i - 2] ?? " ");
      end = i + 1;
      while (end < text.length) {
        if (escapes && text[end] === "\\") end += 2;
        else if (text[end] === "'" && text[end + 1] === "'") end += 2;
        else if (text[end] === "'") break;
        else end++;
      }
      end++;
    } else if (c === '"') {
      end = text.indexOf('"', i + 1);
      while (end >= 0 && text[end + 1] === '"') end = text.indexOf('"', end + 2);
      end = end < 0 ? text.length : end + 1;
    } else if (c === "-" && next === "-") {
      end = text.indexOf("\n", i);
      end = end < 0 ? text.length : end;
    } else if (c === "/" && next === "*") {
      let depth = 1;
      end = i + 2;
      while (end < text.length && depth > 0) {
        if (text[end] === "/" && text[end + 1] === "*") {
          depth++;
          end += 2;
        } else if (text[end] === "*" && text[end + 1] === "/") {
          depth--;
          end += 2;
        } else {
          end++;
        }
      }
    } else if (c === "$" && !identifierChar.test(text[i - 1] ?? " ")) {
      const placeholder = /^\$(\d+)/.exec(text.slice(i));
      const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(text.slice(i));
      if (placeholder) {
        const n = Number(placeholder[1]);
        if (n < 1 || n > params.length) throw new Error(`$${n} has no parameter (${params.length} given)`);
        used.add(n);
        out += literal(params[n - 1]);
        i += placeholder[0].length;
        continue;
      }
      if (tag) {
        const close = text.indexOf(tag[0], i + tag[0].length);
        end = close < 0 ? text.length : close + tag[0].length;
      }
    }
    out += text.slice(i, end);
    i = end;
  }
  return out;
}
