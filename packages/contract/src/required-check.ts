import type { ContractIssue } from "./issues.ts";
import type { Envelope } from "./envelope.ts";
import type { KindDefinition } from "./kinds.ts";

// Each text is the next thing a person has to do, named with the keys they will
// search for; a generic "please investigate" gives a review record no finite route.

const FIELD_RULES: Record<string, string> = {
  id: "a non-empty string",
  kind: "a non-empty string",
  effectKey: "a non-empty string",
  sequenceKey: "a non-empty string",
  sequence: "an integer >= 1",
};

function messageLabel(id: string | null): string {
  return id === null ? "the message without an id" : `message ${id}`;
}

export function invalidContractCheck(id: string | null, issues: ContractIssue[]): string {
  const fields = [...new Set(issues.map((issue) => issue.path))];
  if (fields.length === 0 || fields.includes("")) {
    return "supply an envelope object with id, kind, effectKey, sequenceKey, sequence and payload: the message is not an object";
  }
  const wanted = fields.map((f) => (FIELD_RULES[f] ? `${f} (${FIELD_RULES[f]})` : f));
  return `supply ${wanted.join(", ")} in the envelope of ${messageLabel(id)}`;
}

export function missingKindCheck(id: string | null): string {
  return `supply the kind of ${messageLabel(id)}: it has none`;
}

export function unknownKindCheck(kind: string, id: string | null, known: string[]): string {
  const knownText = known.length > 0 ? known.join(", ") : "no kinds";
  return `check which handler serves kind ${kind} of ${messageLabel(id)}: this consumer handles ${knownText}`;
}

export function unsupportedSchemaCheck(def: KindDefinition, version: string | null, supported: string[]): string {
  const named = version === null ? "no payload schema version" : `payload schema ${version}`;
  return `check ${named} of kind ${def.kind}: supported versions are ${supported.join(", ")}`;
}

export function invalidPayloadCheck(id: string, kind: string, version: string, issues: ContractIssue[]): string {
  const paths = [...new Set(issues.map((issue) => issue.path))];
  return `correct ${paths.join(", ")} of message ${id} (${kind} schema ${version})`;
}

export function staleCheck(sequence: number, sequenceKey: string, last: number): string {
  return `compare sequence ${sequence} of ${sequenceKey} with the applied sequence ${last}`;
}

export function gapCheck(from: number, to: number, sequenceKey: string): string {
  return from === to ? `find message ${from} of ${sequenceKey}` : `find messages ${from}–${to} of ${sequenceKey}`;
}

function describe(envelope: Envelope, def: KindDefinition | undefined): string | null {
  if (def?.describeEffect === undefined) return null;
  // Kind code runs inside the decision; a faulty description must not turn an
  // unknown-effect review into a crash that redelivers the message.
  try {
    const text = def.describeEffect(envelope);
    return text.length > 0 ? text : null;
  } catch {
    return null;
  }
}

export function unknownEffectCheck(envelope: Envelope, def: KindDefinition | undefined): string {
  const description = describe(envelope, def);
  // The idempotency key is what the provider can be queried by, so it is named
  // even when the description is friendlier.
  return description === null
    ? `ask the provider whether effect ${envelope.effectKey} was sent`
    : `ask the provider whether ${description} was sent (idempotency key ${envelope.effectKey})`;
}
