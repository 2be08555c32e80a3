import { config } from "@/lib/config";
import { log } from "@/lib/log";
import { sweepExpiredApprovals } from "@/lib/actions/approval-decisions";
import { runDispatcher } from "./dispatcher";

/** How often requests past their expiry are marked `expired` (lists and answers also do it lazily). */
const APPROVAL_SWEEP_MS = 60_000;

let running: AbortController | null = null;

/** Starts the dispatcher loop in this process, once; OPERATIONS_TICK_MS sets its longest sleep. */
export function startConsoleDispatcher(): void {
  if (running) return;
  running = new AbortController();
  const tickMs = config().OPERATIONS_TICK_MS;
  log.info({ tickMs }, "operations dispatcher started");
  void runDispatcher({ signal: running.signal, tickMs });
  // Four eyes (ADR 0031): expiry writes approval.expired, which webhooks read, without anyone looking.
  const sweep = setInterval(() => {
    sweepExpiredApprovals().catch((err: unknown) => log.warn({ err }, "approval expiry sweep failed"));
  }, APPROVAL_SWEEP_MS);
  sweep.unref();
  running.signal.addEventListener("abort", () => clearInterval(sweep));
}
