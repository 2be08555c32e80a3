/**
 * The webhook notifier sleeps between rounds on the console's abort signal: each round's
 * listener must go with its round. Left on the signal, one a round piled up (a console running a
 * day at one round a second held 86,400 of them, and Node warned of a leak).
 */
import { getEventListeners } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { expect, it } from "vitest";
import { DEFAULT_NOTIFIER_OPTIONS, runNotifier } from "@/lib/notifications";
import { setupTestDatabase } from "../support/database";

setupTestDatabase();

it("a notifier that ran a hundred rounds holds at most one listener on its signal", async () => {
  const controller = new AbortController();
  const running = runNotifier({ ...DEFAULT_NOTIFIER_OPTIONS, tickMs: 2, signal: controller.signal });
  await sleep(1_000);
  const listeners = getEventListeners(controller.signal, "abort").length;
  controller.abort();
  await running;
  expect(listeners).toBeLessThanOrEqual(1);
});
