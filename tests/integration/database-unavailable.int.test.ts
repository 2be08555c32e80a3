import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as list, POST as report } from "@/app/api/v1/reviews/route";
import { closeDb } from "@/lib/db/client";
import { isDatabaseUnavailable } from "@/lib/db/unavailable";
import { freePort } from "@/lib/net/local-server";
import { setupTestDatabase, withClient } from "../support/database";
import { call, tokenFor } from "../support/http";

// The database goes away under the console (a restart, a failover): every API answer is a 503
// with Retry-After that changes nothing, never a 500, and the console resumes by itself when it
// is back. The "database" the console talks to is a TCP proxy in front of the test's PostgreSQL,
// so the test can cut every connection and refuse new ones, as a stopped server does.

const database = setupTestDatabase();

/** A TCP proxy to the test's PostgreSQL that can go down (connections cut) and come back. */
class DatabaseProxy {
  private server?: net.Server;
  private readonly sockets = new Set<net.Socket>();
  constructor(
    private readonly target: { host: string; port: number },
    readonly port: number,
  ) {}

  async up(): Promise<void> {
    this.server = net.createServer((client) => {
      const upstream = net.connect(this.target);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on("close", () => this.sockets.delete(socket));
        socket.on("error", () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, "127.0.0.1", resolve));
  }

  /** Cuts every open connection and stops listening: new connections are refused. */
  async down(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }
}

let proxy: DatabaseProxy;
let token: string;
let consumer: string;

beforeAll(async () => {
  token = await tokenFor("owner");
  consumer = await tokenFor("consumer");
  const target = new URL(database.current.url);
  proxy = new DatabaseProxy({ host: target.hostname, port: Number(target.port || 5432) }, await freePort());
  await proxy.up();
  const viaProxy = new URL(database.current.url);
  viaProxy.host = `127.0.0.1:${proxy.port}`;
  await closeDb();
  process.env.DATABASE_URL = viaProxy.toString();
});

afterAll(async () => {
  await closeDb();
  await proxy.down();
  process.env.DATABASE_URL = database.current.url;
});

let n = 0;
function aReport() {
  n += 1;
  const key = `invoice-down-${n}-${Math.random().toString(36).slice(2)}`;
  return {
    category: "manual-review",
    reason: "retry-limit",
    requiredCheck: "ask the provider whether the reminder went out",
    attempts: 3,
    source: { transport: "redis-streams", queue: "invoices", consumer: "worker-1", transportId: `${n}-0` },
    message: {
      id: `msg-${key}`,
      kind: "invoice.reminder",
      effectKey: `${key}:reminder`,
      sequenceKey: key,
      sequence: 1,
      payload: { invoiceId: key, schema: "2021-03" },
    },
  };
}

async function recordCount(): Promise<number> {
  return withClient(
    database.current.url,
    async (c) => (await c.query(`SELECT count(*)::int AS n FROM review_records`)).rows[0].n,
  );
}

describe("the database goes away under the console", () => {
  it("answers 503 with Retry-After while it is down, changes nothing, and resumes by itself", async () => {
    expect((await call(list, { token })).status).toBe(200);
    const before = await recordCount();

    await proxy.down();
    const read = await listRaw();
    expect(read.status).toBe(503);
    expect(read.headers.get("retry-after")).toBe("5");
    expect((await read.json()).error.code).toBe("database-unavailable");
    const write = await call(report, { token: consumer, body: aReport() });
    expect(write.status).toBe(503);
    expect(write.body.error.code).toBe("database-unavailable");
    expect(await recordCount()).toBe(before);

    await proxy.up();
    expect((await call(list, { token })).status).toBe(200);
    const created = await call(report, { token: consumer, body: aReport() });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(await recordCount()).toBe(before + 1);
  });
});

describe("the database refuses writes as read-only (a demoted primary, a standby, during a switchover)", () => {
  it("answers 503 with Retry-After, not 500, changes nothing, and writes again once the primary answers", async () => {
    const before = await recordCount();
    // A session whose every transaction is read-only answers a write as a standby does (SQLSTATE 25006).
    const readOnly = new URL(process.env.DATABASE_URL!);
    readOnly.searchParams.set("options", "-c default_transaction_read_only=on");
    const primary = process.env.DATABASE_URL!;
    await closeDb();
    process.env.DATABASE_URL = readOnly.toString();
    try {
      const write = await call(report, { token: consumer, body: aReport() });
      expect(write.status, JSON.stringify(write.body)).toBe(503);
      // The console's one answer for "the database is away" (with Retry-After, as above).
      expect(write.body.error.code).toBe("database-unavailable");
      expect(await recordCount()).toBe(before);
    } finally {
      await closeDb();
      process.env.DATABASE_URL = primary;
    }
    const created = await call(report, { token: consumer, body: aReport() });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(await recordCount()).toBe(before + 1);
  });
});

describe("isDatabaseUnavailable", () => {
  it("tells a database that does not answer from a request the database refused", async () => {
    const refused = await import("pg").then(async ({ default: pg }) => {
      const client = new pg.Client({ host: "127.0.0.1", port: await freePort(), user: "x", database: "x" });
      return client.connect().then(
        () => null,
        (error: unknown) => error,
      );
    });
    expect(isDatabaseUnavailable(refused)).toBe(true);
    expect(isDatabaseUnavailable({ meta: { driverAdapterError: { cause: { kind: "DatabaseNotReachable" } } } })).toBe(
      true,
    );
    expect(isDatabaseUnavailable(new Error("wrapped", { cause: { code: "57P01" } }))).toBe(true);
    // A constraint the request broke, a statement that failed: the request's fault, not the server's.
    expect(
      isDatabaseUnavailable({ meta: { driverAdapterError: { cause: { kind: "UniqueConstraintViolation" } } } }),
    ).toBe(false);
    expect(isDatabaseUnavailable({ code: "23505", message: "duplicate key value violates unique constraint" })).toBe(
      false,
    );
    expect(isDatabaseUnavailable(new Error("something else"))).toBe(false);
  });
});

/** The list's raw Response, for its headers. */
async function listRaw(): Promise<Response> {
  return list(new Request("http://localhost/api/v1/reviews", { headers: { authorization: `Bearer ${token}` } }), {
    params: Promise.resolve({}),
  });
}
