import { z } from "zod";
import type { Envelope } from "./envelope.ts";
import { isRecord } from "./envelope.ts";
import { toIssues, type ContractIssue } from "./issues.ts";

export interface TemporaryReasonPolicy {
  limit: number;
  delayMs: number;
}

export interface KindDefinition {
  kind: string;
  schemas: Record<string, z.ZodType>;
  temporaryReasons: Record<string, TemporaryReasonPolicy>;
  describeEffect?: (e: Envelope) => string;
}

export interface KindRegistry {
  get(kind: string): KindDefinition | undefined;
  kinds(): string[];
}

export type PayloadValidation =
  { ok: true } | { ok: false; reason: "unsupported-schema" | "invalid-payload"; issues: ContractIssue[] };

function assertPolicy(kind: string, reason: string, policy: TemporaryReasonPolicy): void {
  // A non-integer or infinite limit would make `attempts >= limit` never true:
  // endless requeue, which the contract calls a defect.
  if (!Number.isSafeInteger(policy.limit) || policy.limit < 0) {
    throw new Error(`kind ${kind}: temporary reason ${reason} needs a limit that is an integer >= 0`);
  }
  if (!Number.isFinite(policy.delayMs) || policy.delayMs < 0) {
    throw new Error(`kind ${kind}: temporary reason ${reason} needs a finite delayMs >= 0`);
  }
}

export function createKindRegistry(defs: KindDefinition[]): KindRegistry {
  // A Map, not an object, so kinds named like Object.prototype members
  // ("constructor", "__proto__") are simply unknown rather than resolving to built-ins.
  const byKind = new Map<string, KindDefinition>();
  for (const def of defs) {
    if (def.kind.length === 0) throw new Error("a kind needs a non-empty name");
    if (byKind.has(def.kind)) throw new Error(`kind ${def.kind} is registered twice`);
    for (const [reason, policy] of Object.entries(def.temporaryReasons)) {
      assertPolicy(def.kind, reason, policy);
    }
    byKind.set(def.kind, def);
  }
  return {
    get: (kind) => byKind.get(kind),
    kinds: () => [...byKind.keys()],
  };
}

export const invoiceReminderKind: KindDefinition = {
  kind: "invoice.reminder",
  schemas: {
    "2021-03": z.looseObject({
      schema: z.literal("2021-03"),
      invoiceId: z.string({ error: "must be a non-empty string" }).min(1, { error: "must be a non-empty string" }),
    }),
  },
  temporaryReasons: {
    "dependency-not-ready": { limit: 1, delayMs: 1000 },
  },
  describeEffect: (e) => {
    const invoiceId = e.payload.invoiceId;
    return `reminder ${typeof invoiceId === "string" && invoiceId.length > 0 ? invoiceId : e.effectKey}`;
  },
};

export const defaultKindRegistry = createKindRegistry([invoiceReminderKind]);

// Own keys only: a payload claiming schema "constructor" must not pick up
// Object.prototype.constructor as if it were a schema.
function schemaFor(def: KindDefinition, version: string): z.ZodType | undefined {
  return Object.hasOwn(def.schemas, version) ? def.schemas[version] : undefined;
}

export function supportedVersions(def: KindDefinition): string[] {
  return Object.keys(def.schemas);
}

export function validatePayload(registry: KindRegistry, kind: string, payload: unknown): PayloadValidation {
  const def = registry.get(kind);
  if (def === undefined) {
    return {
      ok: false,
      reason: "unsupported-schema",
      issues: [{ path: "kind", message: `no handler is registered for kind ${JSON.stringify(kind)}` }],
    };
  }
  const version = isRecord(payload) ? payload.schema : undefined;
  const schema = typeof version === "string" ? schemaFor(def, version) : undefined;
  if (schema === undefined) {
    const named =
      typeof version === "string" && version.length > 0 ? `schema ${JSON.stringify(version)}` : "no schema version";
    return {
      ok: false,
      reason: "unsupported-schema",
      issues: [
        {
          path: "payload.schema",
          message: `${named} is not supported by ${kind} (supported: ${supportedVersions(def).join(", ")})`,
        },
      ],
    };
  }
  const result = schema.safeParse(payload);
  if (!result.success) {
    return { ok: false, reason: "invalid-payload", issues: toIssues(result.error, "payload") };
  }
  return { ok: true };
}
