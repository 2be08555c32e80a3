import { log } from "@/lib/log";
import { runDispatcher } from "./dispatcher";

let running: AbortController | null = null;

/** Starts the dispatcher loop in this process, once; OPERATIONS_TICK_MS sets its longest sleep. */
export function startConsoleDispatcher(): void {
  if (running) return;
  running = new AbortController();
  const tickMs = Number(process.env.OPERATIONS_TICK_MS ?? 200);
  log.info({ tickMs }, "operations dispatcher started");
  void runDispatcher({ signal: running.signal, tickMs: Number.isFinite(tickMs) && tickMs > 0 ? tickMs : 200 });
}
