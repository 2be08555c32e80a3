import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Envelope } from "./envelope.ts";
import {
  createKindRegistry,
  defaultKindRegistry,
  invoiceReminderKind,
  validatePayload,
  type KindDefinition,
} from "./kinds.ts";

function kind(name: string, overrides: Partial<KindDefinition> = {}): KindDefinition {
  return {
    kind: name,
    schemas: { v1: z.looseObject({ schema: z.literal("v1") }) },
    temporaryReasons: {},
    ...overrides,
  };
}

function envelope(payload: Record<string, unknown>): Envelope {
  return {
    id: "msg-order-417",
    kind: "invoice.reminder",
    effectKey: "invoice-417:reminder",
    sequenceKey: "invoice-417",
    sequence: 4,
    payload: { schema: "2021-03", ...payload },
  };
}

describe("createKindRegistry", () => {
  it("finds registered kinds and lists them", () => {
    const registry = createKindRegistry([kind("a.one"), kind("b.two")]);
    expect(registry.get("b.two")?.kind).toBe("b.two");
    expect(registry.get("c.three")).toBeUndefined();
    expect(registry.kinds()).toEqual(["a.one", "b.two"]);
  });

  it("throws when a kind is registered twice", () => {
    expect(() => createKindRegistry([kind("a.one"), kind("a.one")])).toThrow(/a\.one/);
  });

  it("throws on a kind with an empty name", () => {
    expect(() => createKindRegistry([kind("")])).toThrow();
  });

  it.each([
    ["a fractional limit", { limit: 1.5, delayMs: 10 }],
    ["a negative limit", { limit: -1, delayMs: 10 }],
    ["an infinite limit", { limit: Number.POSITIVE_INFINITY, delayMs: 10 }],
    ["a NaN limit", { limit: Number.NaN, delayMs: 10 }],
    ["a negative delay", { limit: 1, delayMs: -1 }],
    ["a NaN delay", { limit: 1, delayMs: Number.NaN }],
  ])("throws on a temporary reason with %s, which could retry without end", (_label, policy) => {
    expect(() => createKindRegistry([kind("a.one", { temporaryReasons: { busy: policy } })])).toThrow(/busy/);
  });

  it("does not resolve Object.prototype names as kinds", () => {
    expect(defaultKindRegistry.get("constructor")).toBeUndefined();
    expect(defaultKindRegistry.get("__proto__")).toBeUndefined();
  });
});

describe("invoiceReminderKind", () => {
  it("is the only kind of the default registry", () => {
    expect(defaultKindRegistry.kinds()).toEqual(["invoice.reminder"]);
    expect(defaultKindRegistry.get("invoice.reminder")).toBe(invoiceReminderKind);
  });

  it("declares the article's temporary reason: dependency-not-ready, one retry after 1000 ms", () => {
    expect(invoiceReminderKind.temporaryReasons).toEqual({ "dependency-not-ready": { limit: 1, delayMs: 1000 } });
  });

  it("describes the effect by invoice id, falling back to the effect key", () => {
    const describeEffect = invoiceReminderKind.describeEffect;
    expect(describeEffect?.(envelope({ invoiceId: "invoice-417" }))).toBe("reminder invoice-417");
    expect(describeEffect?.(envelope({}))).toBe("reminder invoice-417:reminder");
  });
});

describe("validatePayload", () => {
  const registry = defaultKindRegistry;

  it("accepts the worked example's payload, extra fields included", () => {
    expect(validatePayload(registry, "invoice.reminder", { invoiceId: "417", schema: "2021-03", note: "x" })).toEqual({
      ok: true,
    });
  });

  it("reports an unknown kind as unsupported-schema at path kind", () => {
    const result = validatePayload(registry, "invoice.refund", { schema: "2021-03" });
    expect(result).toMatchObject({ ok: false, reason: "unsupported-schema", issues: [{ path: "kind" }] });
  });

  it.each([
    ["an unknown version", { invoiceId: "417", schema: "2099-01" }],
    ["no version", { invoiceId: "417" }],
    ["an empty version", { invoiceId: "417", schema: "" }],
    ["a numeric version", { invoiceId: "417", schema: 2021 }],
    ["the version constructor", { invoiceId: "417", schema: "constructor" }],
    ["the version toString", { invoiceId: "417", schema: "toString" }],
    ["a non-object payload", "417"],
    ["no payload", undefined],
  ])("reports %s as unsupported-schema at payload.schema", (_label, payload) => {
    const result = validatePayload(registry, "invoice.reminder", payload);
    expect(result).toMatchObject({ ok: false, reason: "unsupported-schema", issues: [{ path: "payload.schema" }] });
  });

  it("names the supported versions in the unsupported-schema issue", () => {
    const result = validatePayload(registry, "invoice.reminder", { schema: "2099-01" });
    expect(!result.ok && result.issues[0]?.message).toMatch(/2099-01.*2021-03/);
  });

  it.each([
    ["missing", {}],
    ["empty", { invoiceId: "" }],
    ["a number", { invoiceId: 417 }],
  ])("reports an invoiceId that is %s as invalid-payload at payload.invoiceId", (_label, fields) => {
    const result = validatePayload(registry, "invoice.reminder", { schema: "2021-03", ...fields });
    expect(result).toEqual({
      ok: false,
      reason: "invalid-payload",
      issues: [{ path: "payload.invoiceId", message: expect.any(String) }],
    });
  });

  it("prefixes nested paths with payload, dotted", () => {
    const nested = kind("order.ship", {
      schemas: { v1: z.object({ schema: z.literal("v1"), items: z.array(z.object({ sku: z.string() })) }) },
    });
    const result = validatePayload(createKindRegistry([nested]), "order.ship", { schema: "v1", items: [{ sku: 1 }] });
    expect(!result.ok && result.issues.map((issue) => issue.path)).toEqual(["payload.items.0.sku"]);
  });
});
