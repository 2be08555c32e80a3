import { log } from "@/lib/log";
import { DEFAULT_NOTIFIER_OPTIONS, runNotifier } from "./notifier";

let running: AbortController | null = null;

function positive(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

/**
 * Starts the webhook notifier in this process, once (instrumentation.ts; WEBHOOKS=off skips it).
 * WEBHOOK_TIMEOUT_MS, WEBHOOK_MAX_ATTEMPTS and WEBHOOK_CONCURRENCY tune deliveries.
 */
export function startConsoleNotifier(): void {
  if (running) return;
  running = new AbortController();
  const options = {
    ...DEFAULT_NOTIFIER_OPTIONS,
    timeoutMs: positive("WEBHOOK_TIMEOUT_MS", DEFAULT_NOTIFIER_OPTIONS.timeoutMs),
    maxAttempts: positive("WEBHOOK_MAX_ATTEMPTS", DEFAULT_NOTIFIER_OPTIONS.maxAttempts),
    concurrency: positive("WEBHOOK_CONCURRENCY", DEFAULT_NOTIFIER_OPTIONS.concurrency),
    thresholdEveryMs: positive("WEBHOOK_THRESHOLD_CHECK_MS", DEFAULT_NOTIFIER_OPTIONS.thresholdEveryMs),
  };
  log.info({ timeoutMs: options.timeoutMs, concurrency: options.concurrency }, "webhook notifier started");
  void runNotifier({ ...options, signal: running.signal });
}
