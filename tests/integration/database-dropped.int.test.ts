import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as list, POST as report } from "@/app/api/v1/reviews/route";
import { closeDb } from "@/lib/db/client";
import { isDatabaseUnavailable } from "@/lib/db/unavailable";
import { setupTestDatabase } from "../support/database";
import { call, tokenFor } from "../support/http";

// The console's database is gone from a server that still answers (dropped, not yet restored):
// every connection fails at once with "database does not exist" (3D000), not with a refused or
// cut connection. For a client that is the same as a database that does not answer: a 503 with
// Retry-After, as /api/health answers, never a 500 that blames the console's code.

const database = setupTestDatabase();
let token: string;
let consumer: string;

beforeAll(async () => {
  token = await tokenFor("owner");
  consumer = await tokenFor("consumer");
  // The same server, a database it does not have: what the console sees after DROP DATABASE.
  const gone = new URL(database.current.url);
  gone.pathname = `/${gone.pathname.slice(1)}_dropped`;
  await closeDb();
  process.env.DATABASE_URL = gone.toString();
});

afterAll(async () => {
  await closeDb();
  process.env.DATABASE_URL = database.current.url;
});

describe("the console's database was dropped", () => {
  it("answers 503 with Retry-After, reads and writes alike", async () => {
    const read = await list(
      new Request("http://localhost/api/v1/reviews", { headers: { authorization: `Bearer ${token}` } }),
      { params: Promise.resolve({}) },
    );
    expect(read.status).toBe(503);
    expect(read.headers.get("retry-after")).toBe("5");
    expect((await read.json()).error.code).toBe("database-unavailable");
    const write = await call(report, {
      token: consumer,
      body: {
        category: "manual-review",
        reason: "retry-limit",
        requiredCheck: "ask the provider whether the reminder went out",
        attempts: 3,
        source: { transport: "redis-streams", queue: "invoices", consumer: "worker-1", transportId: "1-0" },
        message: {
          id: "msg-dropped-1",
          kind: "invoice.reminder",
          effectKey: "invoice-dropped-1:reminder",
          sequenceKey: "invoice-dropped-1",
          sequence: 1,
          payload: { invoiceId: "invoice-dropped-1", schema: "2021-03" },
        },
      },
    });
    expect(write.status, JSON.stringify(write.body)).toBe(503);
    expect(write.body.error.code).toBe("database-unavailable");
  });

  it("is told apart by its code, from node-postgres and from Prisma's adapter alike", () => {
    expect(isDatabaseUnavailable({ code: "3D000", message: 'database "x" does not exist' })).toBe(true);
    expect(isDatabaseUnavailable({ meta: { driverAdapterError: { cause: { kind: "DatabaseDoesNotExist" } } } })).toBe(
      true,
    );
  });
});
