import net from "node:net";

/**
 * A TCP proxy on 127.0.0.1 between workers and their broker, for the crash test and the
 * integration tests: `cut()` breaks every connection through it at once (both sockets destroyed,
 * as a broker restart or a network failure would), while it keeps listening so the clients can
 * reconnect. Portable: no broker management API or broker-side command is needed.
 */
export class TcpProxy {
  private server: net.Server | null = null;
  private readonly pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();
  private refusing = false;
  /** Connections broken by `cut()`, over all cuts. */
  cutConnections = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async start(port = 0): Promise<number> {
    const server = net.createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve());
    });
    this.server = server;
    return this.port;
  }

  get port(): number {
    const address = this.server?.address();
    if (!address || typeof address === "string") throw new Error("the proxy is not listening");
    return address.port;
  }

  /** Connections open through the proxy now. */
  get open(): number {
    return this.pairs.size;
  }

  /**
   * Breaks every open connection; with `refuseMs`, new connections are refused that long too (a
   * broker that is down for a while). Returns how many connections were cut.
   */
  cut(refuseMs = 0): number {
    const pairs = [...this.pairs];
    for (const { client, upstream } of pairs) {
      client.destroy();
      upstream.destroy();
    }
    this.pairs.clear();
    this.cutConnections += pairs.length;
    if (refuseMs > 0) {
      this.refusing = true;
      setTimeout(() => (this.refusing = false), refuseMs).unref();
    }
    return pairs.length;
  }

  async stop(): Promise<void> {
    this.cut();
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private accept(client: net.Socket): void {
    if (this.refusing) {
      client.destroy();
      return;
    }
    const upstream = net.connect(this.target.port, this.target.host);
    const pair = { client, upstream };
    this.pairs.add(pair);
    const close = () => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on("error", close).on("close", close);
    upstream.on("error", close).on("close", close);
    client.pipe(upstream);
    upstream.pipe(client);
  }
}

/** The host and port of a broker URL (`redis://`, `amqp://`, or a bare `host:port`). */
export function hostAndPort(url: string, defaultPort: number): { host: string; port: number } {
  const parsed = new URL(url.includes("://") ? url : `tcp://${url}`);
  return { host: parsed.hostname || "127.0.0.1", port: Number(parsed.port || defaultPort) };
}

/** `url` with its host and port replaced by the proxy's. */
export function throughProxy(url: string, port: number): string {
  if (!url.includes("://")) return `127.0.0.1:${port}`;
  const parsed = new URL(url);
  parsed.hostname = "127.0.0.1";
  parsed.port = String(port);
  return parsed.toString();
}
