import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, vi } from "vitest";
import { DEFAULT_NOTIFIER_OPTIONS, type NotifierOptions, runNotifier } from "@/lib/notifications";

// The receiving end of the webhook tests: an HTTP server on 127.0.0.1 that keeps every request
// and answers each path as the test says, and the console's notifier loops run against it.

export interface ReceivedRequest {
  path: string;
  at: number;
  headers: Record<string, string>;
  body: string;
}

/** How the receiver answers a path, by the number of the request to it (1, 2, ...). */
export type Behaviour = (n: number) => "ok" | "fail" | "hang";

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>`, once the file's beforeAll has run. */
  readonly base: string;
  readonly received: ReceivedRequest[];
  /** Path -> how it answers; a path not here is answered 204. */
  readonly behaviours: Map<string, Behaviour>;
  /** The requests to this path, in order. */
  to(path: string): ReceivedRequest[];
}

/**
 * A receiver for the whole test file, started in its beforeAll and closed in its afterAll. The
 * receiver is on this machine, so the file allows 127.0.0.0/8 as an on-premise receiver is
 * allowed (the default refuses it). A failing answer carries markup and a control character:
 * the console must show it as text.
 */
export function webhookReceiver(): WebhookReceiver {
  let server: Server;
  let base = "";
  const received: ReceivedRequest[] = [];
  const behaviours = new Map<string, Behaviour>();
  const counts = new Map<string, number>();

  beforeAll(async () => {
    vi.stubEnv("WEBHOOK_ALLOWED_NETWORKS", "127.0.0.0/8");
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
      req.on("end", () => {
        const path = req.url ?? "/";
        const n = (counts.get(path) ?? 0) + 1;
        counts.set(path, n);
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
        received.push({ path, at: Date.now(), headers, body });
        const behaviour = behaviours.get(path)?.(n) ?? "ok";
        if (behaviour === "hang") return; // never answers: the notifier's timeout ends it
        res.writeHead(behaviour === "ok" ? 204 : 500, { "content-type": "text/plain" });
        res.end(behaviour === "ok" ? "" : "<script>boom</script> internal error\u0007");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    vi.unstubAllEnvs();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  return {
    get base() {
      return base;
    },
    received,
    behaviours,
    to: (path) => received.filter((r) => r.path === path),
  };
}

/** Runs `count` notifier loops (quick ticks) until `fn` is done, then stops them and waits for them to end. */
export async function withNotifiers<T>(
  count: number,
  options: Partial<NotifierOptions>,
  fn: () => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const loops = Array.from({ length: count }, () =>
    runNotifier({
      ...DEFAULT_NOTIFIER_OPTIONS,
      tickMs: 25,
      thresholdEveryMs: 3_600_000,
      // Generous for a loaded machine: the first request of a process is slow to start.
      timeoutMs: 1_500,
      baseDelayMs: 200,
      maxDelayMs: 5_000,
      maxAttempts: 6,
      ...options,
      signal: controller.signal,
    }),
  );
  try {
    return await fn();
  } finally {
    controller.abort();
    await Promise.all(loops);
  }
}

/** Polls `probe` until it gives something other than `undefined` or `false`, and gives that. */
export async function until<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  ms = 15_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
