import pg from "pg";

/** Runs `fn` on a connection of its own to `url` (a server or one of its databases), then closes it. */
export async function withConnection<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
