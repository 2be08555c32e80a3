import { config } from "@/lib/config";
import { log } from "@/lib/log";
import { DEFAULT_NOTIFIER_OPTIONS, runNotifier } from "./notifier";

let running: AbortController | null = null;

/**
 * Starts the webhook notifier in this process, once (instrumentation.ts; WEBHOOKS=off skips it).
 * WEBHOOK_TIMEOUT_MS, WEBHOOK_MAX_ATTEMPTS and WEBHOOK_CONCURRENCY tune deliveries.
 */
export function startConsoleNotifier(): void {
  if (running) return;
  running = new AbortController();
  const options = {
    ...DEFAULT_NOTIFIER_OPTIONS,
    timeoutMs: config().WEBHOOK_TIMEOUT_MS,
    maxAttempts: config().WEBHOOK_MAX_ATTEMPTS,
    concurrency: config().WEBHOOK_CONCURRENCY,
    thresholdEveryMs: config().WEBHOOK_THRESHOLD_CHECK_MS,
  };
  log.info({ timeoutMs: options.timeoutMs, concurrency: options.concurrency }, "webhook notifier started");
  void runNotifier({ ...options, signal: running.signal });
}
