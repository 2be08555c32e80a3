import { config } from "@/lib/config";
import { Refusal } from "@/lib/domain/refusal";

/**
 * Reads a JSON body: 415 unless it is declared JSON, 413 past the limit (counted while
 * streaming, so a missing or lying Content-Length does not help), 400 when it does not parse.
 */
export async function readJsonBody(
  request: Request,
  maxBytes = config().MAX_BODY_BYTES,
): Promise<{ value: unknown; text: string }> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw new Refusal(
      "unsupported-media-type",
      "unsupported-media-type",
      "the body must be JSON (Content-Type: application/json)",
    );
  }
  const declared = Number(request.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => {});
        throw tooLarge(maxBytes);
      }
      chunks.push(value);
    }
  }
  const text = Buffer.concat(chunks).toString("utf8");
  try {
    return { value: JSON.parse(text) as unknown, text };
  } catch {
    throw new Refusal("invalid", "invalid-json", "the body is not valid JSON");
  }
}

function tooLarge(maxBytes: number): Refusal {
  return new Refusal("too-large", "body-too-large", `the body is larger than ${maxBytes} bytes`);
}
