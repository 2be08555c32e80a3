import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

// A stand-in for an email API such as the reference article's provider, for the demo, the
// integration tests and the crash test. It honours `Idempotency-Key` like Stripe and the IETF
// draft: the first result per key is stored and returned again (never a second email); the same
// key with another payload is a 422. Switches make it misbehave the ways real providers do.

export interface EmailRequest {
  to: string;
  subject: string;
  text: string;
  /** Free-form; the demo sends the envelope's keys so the tests can check order per key. */
  metadata?: { messageId?: string; sequenceKey?: string; sequence?: number; [key: string]: unknown };
}

export interface SentEmail {
  id: string;
  idempotencyKey: string;
  request: EmailRequest;
  /** Position in creation order, from 1. */
  order: number;
  at: string;
}

export interface ProviderSwitches {
  /** Answer only after this many milliseconds (the email is sent first). */
  slowMs: number;
  /** Share of new emails whose answer is dropped: sent, then the connection is closed unanswered. */
  dropRate: number;
  /** Share of requests answered 503 without sending anything. */
  unavailableRate: number;
}

/** A targeted misbehaviour, e.g. "drop the answer for invoice 417 once". */
export interface ProviderRule {
  match: (request: EmailRequest, idempotencyKey: string) => boolean;
  action: "drop" | "unavailable" | "slow";
  slowMs?: number;
  /** How often the rule fires (default once); Infinity for always. */
  times?: number;
}

export interface ProviderStats {
  /** Requests with a key and a valid body. */
  calls: number;
  /** Emails created: one per key, ever. */
  created: number;
  /**
   * Calls whose key had an email already: answered with the stored result, nothing sent. Each is
   * an effect a worker ran again, which a provider without idempotency keys would have doubled.
   */
  repeats: number;
  dropped: number;
  unavailable: number;
  slow: number;
}

const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
};

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function validEmail(value: unknown): value is EmailRequest {
  const v = value as EmailRequest;
  return (
    typeof v === "object" &&
    v !== null &&
    typeof v.to === "string" &&
    v.to.includes("@") &&
    typeof v.subject === "string" &&
    typeof v.text === "string"
  );
}

export class FakeEmailProvider {
  readonly sent: SentEmail[] = [];
  readonly switches: ProviderSwitches = { slowMs: 0, dropRate: 0, unavailableRate: 0 };
  readonly rules: ProviderRule[] = [];
  /** Keys whose first answer was dropped: the worker cannot know these emails exist. */
  readonly droppedKeys = new Set<string>();
  /** Every valid call, in order, with what it got. */
  readonly calls: { idempotencyKey: string; at: number; answer: "sent" | "repeat" | "unavailable" | "dropped" }[] = [];
  private readonly byKey = new Map<string, { email: SentEmail; hash: string }>();
  private readonly stats: ProviderStats = {
    calls: 0,
    created: 0,
    repeats: 0,
    dropped: 0,
    unavailable: 0,
    slow: 0,
  };
  private server: http.Server | null = null;
  private random: () => number;
  url = "";

  constructor(options: { random?: () => number } = {}) {
    this.random = options.random ?? Math.random;
  }

  async start(port = 0, host = "127.0.0.1"): Promise<string> {
    const server = http.createServer((req, res) => {
      this.serve(req, res).catch((error: unknown) => {
        if (!res.headersSent) json(res, 500, { error: String(error) });
      });
    });
    // Longer than any client keeps an idle connection: a server-side close of a reused socket
    // would look to the client like a dropped answer.
    server.keepAliveTimeout = 120_000;
    await new Promise<void>((resolve) => server.listen(port, host, resolve));
    this.server = server;
    const address = server.address() as AddressInfo;
    this.url = `http://${host}:${address.port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  set(switches: Partial<ProviderSwitches>): void {
    Object.assign(this.switches, switches);
  }

  snapshot(): ProviderStats {
    return { ...this.stats };
  }

  /** The email sent under `idempotencyKey`, as support would look it up. */
  lookup(idempotencyKey: string): SentEmail | null {
    return this.byKey.get(idempotencyKey)?.email ?? null;
  }

  private takeRule(request: EmailRequest, key: string, action: ProviderRule["action"]): ProviderRule | null {
    const rule = this.rules.find((r) => r.action === action && (r.times ?? 1) > 0 && r.match(request, key));
    if (rule) rule.times = (rule.times ?? 1) - 1;
    return rule ?? null;
  }

  private async serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://provider");
    if (req.method === "GET" && url.pathname === "/_stats") return json(res, 200, this.snapshot());
    if (req.method === "POST" && url.pathname === "/_switches") {
      this.set(JSON.parse((await readBody(req)) || "{}") as Partial<ProviderSwitches>);
      return json(res, 200, this.switches);
    }
    if (req.method === "GET" && url.pathname === "/v1/emails") {
      const email = this.lookup(url.searchParams.get("idempotencyKey") ?? "");
      return email ? json(res, 200, email) : json(res, 404, { error: "no email with that idempotency key" });
    }
    if (req.method === "GET" && url.pathname.startsWith("/v1/emails/")) {
      const email = this.sent.find((e) => e.id === url.pathname.slice("/v1/emails/".length));
      return email ? json(res, 200, email) : json(res, 404, { error: "no such email" });
    }
    if (req.method !== "POST" || url.pathname !== "/v1/emails") return json(res, 404, { error: "not found" });

    const key = req.headers["idempotency-key"];
    if (typeof key !== "string" || key.length === 0) {
      return json(res, 400, { error: "the Idempotency-Key header is required" });
    }
    const text = await readBody(req);
    let request: unknown;
    try {
      request = JSON.parse(text);
    } catch {
      return json(res, 400, { error: "the body is not JSON" });
    }
    if (!validEmail(request)) return json(res, 400, { error: "to, subject and text are required" });
    this.stats.calls++;
    const hash = createHash("sha256").update(text).digest("hex");
    const previous = this.byKey.get(key);
    if (previous) {
      this.stats.repeats++;
      this.calls.push({ idempotencyKey: key, at: Date.now(), answer: "repeat" });
      if (previous.hash !== hash) {
        return json(res, 422, { error: "this Idempotency-Key was used with another payload" });
      }
      return json(res, 200, { id: previous.email.id, status: "sent" }, { "idempotent-replayed": "true" });
    }
    if (this.takeRule(request, key, "unavailable") || this.random() < this.switches.unavailableRate) {
      this.stats.unavailable++;
      this.calls.push({ idempotencyKey: key, at: Date.now(), answer: "unavailable" });
      return json(res, 503, { error: "temporarily unavailable" }, { "retry-after": "1" });
    }
    // Sent: from here on the email exists, whatever happens to the answer.
    const email: SentEmail = {
      id: `em_${String(this.sent.length + 1).padStart(6, "0")}`,
      idempotencyKey: key,
      request,
      order: this.sent.length + 1,
      at: new Date().toISOString(),
    };
    this.sent.push(email);
    this.byKey.set(key, { email, hash });
    this.stats.created++;
    const slow = this.takeRule(request, key, "slow");
    const slowMs = slow?.slowMs ?? (slow ? 3000 : this.switches.slowMs);
    if (slowMs > 0) {
      this.stats.slow++;
      await new Promise((resolve) => setTimeout(resolve, slowMs));
    }
    if (this.takeRule(request, key, "drop") || this.random() < this.switches.dropRate) {
      this.stats.dropped++;
      this.droppedKeys.add(key);
      this.calls.push({ idempotencyKey: key, at: Date.now(), answer: "dropped" });
      req.socket.destroy();
      return;
    }
    this.calls.push({ idempotencyKey: key, at: Date.now(), answer: "sent" });
    json(res, 200, { id: email.id, status: "sent" });
  }
}
