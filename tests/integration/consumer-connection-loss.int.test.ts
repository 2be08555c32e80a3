import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { closeConsumerPool, consumerPool } from "@/packages/consumer/src/pipeline";
import { setupTestDatabase, withClient } from "../support/database";

// A worker's connection ends while a step holds it between statements (the server shut down,
// as in `npm run test:restarts`). node-postgres reports that as an 'error' event on the
// checked-out client; unheard, it ended the worker process. Now the next statement fails (the
// runtime backs off on that), and the pool replaces the connection.

const database = setupTestDatabase();

afterAll(() => closeConsumerPool());

describe("a worker connection that the server ends while it is checked out", () => {
  it("fails the next statement instead of ending the process, and the pool recovers", async () => {
    const unheard: unknown[] = [];
    const onUncaught = (error: unknown) => unheard.push(error);
    process.on("uncaughtException", onUncaught);
    try {
      const client = await consumerPool().connect();
      const pid = (await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
      const closed = new Promise((resolve) => (client as pg.PoolClient & pg.Client).once("end", resolve));
      // The same message a server shutdown sends every session: FATAL 57P01, then the socket closes.
      await withClient(database.current.url, (admin) => admin.query("SELECT pg_terminate_backend($1)", [pid]));
      await closed;
      await expect(client.query("SELECT 1")).rejects.toThrow();
      client.release(new Error("connection lost"));
      expect(unheard).toEqual([]);
      const again = await consumerPool().query<{ one: number }>("SELECT 1 AS one");
      expect(again.rows[0]!.one).toBe(1);
    } finally {
      process.off("uncaughtException", onUncaught);
    }
  });
});
