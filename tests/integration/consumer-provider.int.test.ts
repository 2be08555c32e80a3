/**
 * The fake email provider of the demo and the crash test (its idempotency is what the article's
 * provider promises), and how the demo's handler reads its answers: a handler must tell "the
 * provider certainly did not act" from "it may have acted".
 */
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeEmailProvider } from "@/testing/worker/demo/fake-email-provider";
import { emailReminderHandler } from "@/testing/worker/demo/reminder-handler";
import { EffectOutcomeUnknownError, TemporaryFailure } from "@review-console/consumer";
import { reminder } from "@/testing/worker/harness";
import { envelopeSchema } from "@review-console/contract";

const provider = new FakeEmailProvider();
beforeAll(() => provider.start());
afterAll(() => provider.stop());

const email = { to: "billing@customer.example", subject: "Reminder", text: "Invoice 417 is due." };

async function send(key: string | null, body: unknown = email) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (key !== null) headers["idempotency-key"] = key;
  const res = await fetch(`${provider.url}/v1/emails`, { method: "POST", headers, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any, replayed: res.headers.get("idempotent-replayed") };
}

const envelope = (invoice: string) => envelopeSchema.parse(reminder(invoice, 1));
const execute = (invoice: string) =>
  emailReminderHandler(provider.url).execute({
    envelope: envelope(invoice),
    effectKey: `${invoice}:reminder-1`,
    signal: new AbortController().signal,
  });

describe("the fake email provider honours Idempotency-Key", () => {
  it("the same key returns the first result and never sends twice", async () => {
    const first = await send("key-417");
    const second = await send("key-417");
    expect(first.status).toBe(200);
    expect(second).toEqual({ status: 200, body: first.body, replayed: "true" });
    expect(provider.sent.filter((e) => e.idempotencyKey === "key-417")).toHaveLength(1);
    expect((await fetch(`${provider.url}/v1/emails?idempotencyKey=key-417`)).status).toBe(200);
  });

  it("refuses a request without a key (400) and the same key with another payload (422)", async () => {
    expect((await send(null)).status).toBe(400);
    await send("key-418");
    expect((await send("key-418", { ...email, text: "something else" })).status).toBe(422);
    expect(provider.sent.filter((e) => e.idempotencyKey === "key-418")).toHaveLength(1);
  });

  it("503 switch: answers 503 and sends nothing, so a retry with the same key sends once", async () => {
    provider.set({ unavailableRate: 1 });
    expect((await send("key-419")).status).toBe(503);
    provider.set({ unavailableRate: 0 });
    expect(provider.lookup("key-419")).toBeNull();
    expect((await send("key-419")).status).toBe(200);
    expect(provider.sent.filter((e) => e.idempotencyKey === "key-419")).toHaveLength(1);
  });

  it("drop switch: sends, then closes the connection without an answer; the key still returns the email", async () => {
    provider.set({ dropRate: 1 });
    await expect(send("key-420")).rejects.toThrow();
    provider.set({ dropRate: 0 });
    expect(provider.droppedKeys.has("key-420")).toBe(true);
    const sent = provider.lookup("key-420");
    expect(sent).not.toBeNull();
    expect((await send("key-420")).body.id).toBe(sent!.id);
  });

  it("slow switch: answers after the delay, the email already sent", async () => {
    provider.set({ slowMs: 300 });
    const started = Date.now();
    const answer = await send("key-421");
    provider.set({ slowMs: 0 });
    expect(answer.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });
});

describe("the demo's reminder handler reads the provider's answers", () => {
  it("sends the effectKey as the Idempotency-Key and returns the provider's reference", async () => {
    const { providerRef } = await execute("inv-h1");
    expect(provider.lookup("inv-h1:reminder-1")?.id).toBe(providerRef);
  });

  it("a dropped answer is an unknown outcome; a 503 is a temporary failure", async () => {
    provider.set({ dropRate: 1 });
    await expect(execute("inv-h2")).rejects.toBeInstanceOf(EffectOutcomeUnknownError);
    provider.set({ dropRate: 0, unavailableRate: 1 });
    const failure = await execute("inv-h3").catch((e: unknown) => e);
    provider.set({ unavailableRate: 0 });
    expect(failure).toBeInstanceOf(TemporaryFailure);
    expect((failure as TemporaryFailure).reason).toBe("dependency-not-ready");
  });

  it("a provider that cannot be reached at all is a temporary failure: nothing was sent", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const failure = await emailReminderHandler(`http://127.0.0.1:${port}`)
      .execute({ envelope: envelope("inv-h4"), effectKey: "inv-h4:reminder-1", signal: new AbortController().signal })
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(TemporaryFailure);
  });
});
