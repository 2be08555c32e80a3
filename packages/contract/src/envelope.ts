import { z } from "zod";

export const ENVELOPE_KEY_FIELDS = ["id", "kind", "effectKey", "sequenceKey", "sequence"] as const;

const NON_EMPTY = "must be a non-empty string";
const POSITIVE_INT = "must be an integer >= 1";

const nonEmptyString = z.string({ error: NON_EMPTY }).min(1, { error: NON_EMPTY });

// z.int() accepts safe integers only, so NaN, Infinity, 1.5, "3" and 2**53 all fail:
// a sequence that cannot be compared exactly cannot order anything.
const sequenceNumber = z.int({ error: POSITIVE_INT }).min(1, { error: POSITIVE_INT });

// Loose on purpose: producers may add fields (tracing, tenant) and the message is
// kept unchanged forever, so validation must not strip what it does not know.
export const envelopeSchema = z.looseObject({
  id: nonEmptyString,
  kind: nonEmptyString,
  effectKey: nonEmptyString,
  sequenceKey: nonEmptyString,
  sequence: sequenceNumber,
  payload: z.looseObject({ schema: nonEmptyString }, { error: "must be an object with a schema version" }),
});

export type Envelope = z.infer<typeof envelopeSchema>;

// Rule 1 of the decision names only these fields; `kind` and `payload.schema`
// belong to rule 2 (an unknown or absent kind is an unsupported schema).
export const contractKeysSchema = envelopeSchema.pick({
  id: true,
  effectKey: true,
  sequenceKey: true,
  sequence: true,
});

export interface EnvelopeKeys {
  id: string | null;
  kind: string | null;
  effectKey: string | null;
  sequenceKey: string | null;
  sequence: number | null;
  schema: string | null;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function nonEmptyOrNull(value: unknown): string | null {
  return typeof value === "string" && value.length > 0 ? value : null;
}

// Invalid messages still need a review record that can be found by its keys,
// so this salvages whatever is usable instead of rejecting the whole message.
export function readEnvelopeKeys(raw: unknown): EnvelopeKeys {
  const source = isRecord(raw) ? raw : {};
  const payload = isRecord(source.payload) ? source.payload : {};
  const sequence = source.sequence;
  return {
    id: nonEmptyOrNull(source.id),
    kind: nonEmptyOrNull(source.kind),
    effectKey: nonEmptyOrNull(source.effectKey),
    sequenceKey: nonEmptyOrNull(source.sequenceKey),
    sequence: typeof sequence === "number" && Number.isSafeInteger(sequence) && sequence >= 1 ? sequence : null,
    schema: nonEmptyOrNull(payload.schema),
  };
}
