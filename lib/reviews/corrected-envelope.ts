import {
  ENVELOPE_KEY_FIELDS,
  envelopeSchema,
  isRecord,
  readEnvelopeKeys,
  toIssues,
  type ContractIssue,
  defaultKindRegistry,
  type KindRegistry,
  validatePayload,
} from "@review-console/contract";

export type CorrectionResult =
  | { ok: true; envelope: Record<string, unknown> }
  | {
      ok: false;
      code:
        | "envelope-field-present"
        | "envelope-field-unknown"
        | "invalid-envelope"
        | "invalid-payload"
        | "unsupported-schema";
      message: string;
      issues: ContractIssue[];
    };

/**
 * The next revision of a message: the latest envelope with its payload replaced and, for a
 * message that broke the contract, the envelope fields it lacked supplied. A field the message
 * (or an earlier revision) already has can never change: `id` and `effectKey` are what make a
 * replay the same effect. The result must be a valid envelope whose payload fits its kind.
 */
export function correctedEnvelope(
  latest: unknown,
  change: { payload?: Record<string, unknown>; envelope?: Record<string, unknown> },
  registry: KindRegistry = defaultKindRegistry,
): CorrectionResult {
  const base: Record<string, unknown> = isRecord(latest) ? { ...latest } : {};
  const present = readEnvelopeKeys(base);
  for (const [field, value] of Object.entries(change.envelope ?? {})) {
    if (!(ENVELOPE_KEY_FIELDS as readonly string[]).includes(field)) {
      return refuse(
        "envelope-field-unknown",
        `envelope.${field}`,
        `only ${ENVELOPE_KEY_FIELDS.join(", ")} can be supplied`,
      );
    }
    const current = present[field as keyof typeof present];
    if (current !== null && current !== value) {
      return refuse(
        "envelope-field-present",
        `envelope.${field}`,
        "the message already has this field; it cannot change",
      );
    }
    base[field] = value;
  }
  if (change.payload) base.payload = change.payload;

  const envelope = envelopeSchema.safeParse(base);
  if (!envelope.success) {
    const issues = toIssues(envelope.error);
    return { ok: false, code: "invalid-envelope", message: `${issues[0]?.path}: ${issues[0]?.message}`, issues };
  }
  const payload = validatePayload(registry, envelope.data.kind, envelope.data.payload);
  if (!payload.ok) {
    const first = payload.issues[0];
    return {
      ok: false,
      code: payload.reason,
      message: first ? `${first.path}: ${first.message}` : payload.reason,
      issues: payload.issues,
    };
  }
  return { ok: true, envelope: base };
}

function refuse(
  code: "envelope-field-present" | "envelope-field-unknown",
  path: string,
  message: string,
): CorrectionResult {
  return { ok: false, code, message: `${path}: ${message}`, issues: [{ path, message }] };
}
