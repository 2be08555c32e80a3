import { describe, expect, it } from "vitest";
import type { Disposition, IncomingMessage } from "../types.ts";
import { KeyScheduler, partitionOf, textBody, type Held, type Settled } from "./key-scheduler.ts";

const silent = { info() {}, warn() {}, error() {} };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function envelopeMessage(key: string, sequence: number): IncomingMessage {
  const value = { id: `m-${key}-${sequence}`, sequenceKey: key, sequence };
  return {
    body: { parsed: true, value, text: JSON.stringify(value) },
    source: { transport: "test", transportId: `${key}#${sequence}` },
    deliveryCount: 1,
  };
}

/** A scheduler whose handler answers from `answers` (ack by default) and logs what ran, in order. */
function harness(options: { concurrency?: number; answer?: (id: string, run: number) => Disposition } = {}) {
  const ran: string[] = [];
  const settled: { id: string; disposition: Disposition }[] = [];
  const runs = new Map<string, number>();
  let active = 0;
  let maxActive = 0;
  const scheduler = new KeyScheduler<string>({
    concurrency: options.concurrency ?? 4,
    logger: silent,
    async handle(message) {
      const id = message.source.transportId!;
      runs.set(id, (runs.get(id) ?? 0) + 1);
      ran.push(id);
      active++;
      maxActive = Math.max(maxActive, active);
      await sleep(5);
      active--;
      return options.answer?.(id, runs.get(id)!) ?? { ack: true };
    },
    async settle(held: Held<string>, disposition): Promise<Settled> {
      settled.push({ id: held.ref, disposition });
      return disposition.ack ? "release" : "keep";
    },
  });
  const add = (key: string, sequence: number) => {
    const message = envelopeMessage(key, sequence);
    return scheduler.add({ ref: message.source.transportId!, ...partitionOf(message.body, "x"), message });
  };
  return { scheduler, add, ran, settled, maxActive: () => maxActive };
}

const until = async (condition: () => boolean, ms = 2000) => {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await sleep(5);
  }
};

describe("KeyScheduler", () => {
  it("runs one key's messages one at a time in sequence order, keys side by side up to the concurrency", async () => {
    const h = harness({ concurrency: 2 });
    h.add("a", 2);
    h.add("b", 1);
    h.add("a", 1); // arrives late, but a#2 is already running: it goes next
    h.add("c", 1);
    h.add("a", 3);
    await until(() => h.scheduler.size === 0);
    const order = (key: string) => h.ran.filter((id) => id.startsWith(`${key}#`));
    expect(order("a")).toEqual(["a#2", "a#1", "a#3"]);
    expect(h.maxActive()).toBeLessThanOrEqual(2);
  });

  it("a late predecessor overtakes a successor that waits for it", async () => {
    const h = harness({
      concurrency: 1,
      answer: (id, run) => (id === "a#2" && run === 1 ? { ack: false, retryInMs: 50, cause: "wait" } : { ack: true }),
    });
    h.add("a", 2);
    await until(() => h.settled.length === 1);
    h.add("a", 1);
    await until(() => h.scheduler.size === 0);
    expect(h.ran).toEqual(["a#2", "a#1", "a#2"]);
  });

  it("a message kept for a delay runs again after it, while other keys run meanwhile", async () => {
    const h = harness({
      concurrency: 1,
      answer: (id, run) =>
        id === "slow#1" && run === 1 ? { ack: false, retryInMs: 200, cause: "retry" } : { ack: true },
    });
    const started = Date.now();
    h.add("slow", 1);
    for (const key of ["b", "c", "d"]) h.add(key, 1);
    await until(() => h.scheduler.size === 0);
    expect(h.ran).toEqual(["slow#1", "b#1", "c#1", "d#1", "slow#1"]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(195);
  });

  it("a held partition starts nothing before its time, unless the message it waits for is back", async () => {
    const h = harness();
    h.scheduler.holdPartition("key:a", Date.now() + 150, 1);
    const started = Date.now();
    h.add("a", 2);
    await sleep(50);
    expect(h.ran).toEqual([]);
    await until(() => h.scheduler.size === 0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(145);

    h.scheduler.holdPartition("key:b", Date.now() + 10_000, 1);
    h.add("b", 2);
    h.add("b", 1); // the one the barrier waits for: both run now, in order
    await until(() => h.scheduler.size === 0);
    expect(h.ran.slice(-2)).toEqual(["b#1", "b#2"]);
  });

  it("drop forgets held messages that are not running; stop waits for the running ones", async () => {
    const h = harness({ concurrency: 1 });
    const first = h.add("a", 1);
    h.add("b", 1);
    h.add("c", 1);
    await until(() => h.ran.length === 1);
    const dropped = h.scheduler.drop(() => true);
    expect(first.running).toBe(true);
    expect(dropped.map((d) => d.ref).sort()).toEqual(["b#1", "c#1"]);
    await h.scheduler.stop();
    expect(h.settled.map((s) => s.id)).toEqual(["a#1"]);
    expect(h.scheduler.takeRest()).toEqual([]);
    expect(h.ran).toEqual(["a#1"]);
  });
});

describe("textBody and partitionOf", () => {
  it("keeps JSON with its exact text, and text that is not JSON with the reason", () => {
    const json = textBody(new TextEncoder().encode(`{"sequenceKey":"k","sequence":3}`));
    expect(json).toMatchObject({ parsed: true, value: { sequenceKey: "k", sequence: 3 } });
    expect(partitionOf(json, "t1")).toEqual({ partition: "key:k", sequence: 3 });
    const text = textBody(new TextEncoder().encode("not json"));
    expect(text).toMatchObject({ parsed: false, text: "not json" });
    expect(partitionOf(text, "t2")).toEqual({ partition: "delivery:t2", sequence: Number.MAX_SAFE_INTEGER });
  });
});
