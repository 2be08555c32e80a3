import { once } from "node:events";
import type pg from "pg";

/*
 * `COPY .. FROM STDIN` through node-postgres without another dependency: a custom query object
 * (pg's "submittable" protocol, as pg-cursor and pg-copy-streams use it) that answers the server's
 * CopyInResponse with the chunks of `source`, waits for the socket to drain when it is full (so a
 * generator of 30,000,000 rows never buffers more than the socket does), and resolves with the
 * row count of the server's `COPY n`. A failing source sends CopyFail, so the server aborts the
 * COPY (and the transaction) instead of committing part of it.
 */

interface CopyConnection {
  query(text: string): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
  sendCopyFail(message: string): void;
  stream: NodeJS.WritableStream & { writableNeedDrain?: boolean };
}

class CopyFromQuery {
  private error: Error | null = null;
  private rows = 0;
  readonly done: Promise<number>;
  private settle!: { resolve: (rows: number) => void; reject: (error: Error) => void };

  constructor(
    private readonly text: string,
    private readonly source: AsyncIterable<string | Buffer>,
  ) {
    this.done = new Promise((resolve, reject) => (this.settle = { resolve, reject }));
  }

  submit(connection: CopyConnection): void {
    connection.query(this.text);
  }

  handleCopyInResponse(connection: CopyConnection): void {
    void this.send(connection);
  }

  private async send(connection: CopyConnection): Promise<void> {
    try {
      for await (const chunk of this.source) {
        // The server reported an error (sent while we were writing): stop; it waits for nothing.
        if (this.error) return;
        connection.sendCopyFromChunk(typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk);
        if (connection.stream.writableNeedDrain) await once(connection.stream, "drain");
      }
      connection.endCopyFrom();
    } catch (error) {
      this.error = error instanceof Error ? error : new Error(String(error));
      connection.sendCopyFail(this.error.message);
    }
  }

  handleCommandComplete(message: { text?: string }): void {
    const match = /^COPY (\d+)/.exec(message.text ?? "");
    if (match) this.rows = Number(match[1]);
  }

  handleError(error: Error): void {
    this.error ??= error;
  }

  handleReadyForQuery(): void {
    if (this.error) this.settle.reject(this.error);
    else this.settle.resolve(this.rows);
  }

  // pg calls these for other message types; COPY FROM sends none of them.
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handleCopyData(): void {}
}

/** Runs `COPY ... FROM STDIN` (text format) on `client`, streaming `source`. Returns the row count. */
export async function copyFrom(
  client: pg.Client,
  sql: string,
  source: AsyncIterable<string | Buffer>,
): Promise<number> {
  const query = new CopyFromQuery(sql, source);
  void client.query(query as unknown as pg.QueryConfig);
  return query.done;
}
