/**
 * Records for the console specs, made the way production makes them: a consumer token reports
 * each one through `POST /api/v1/reviews`, and replays are claimed through
 * `POST /api/v1/replays/claim`. Import `test` and `expect` from here in specs that need them.
 *
 * - `consumer` (one per worker): a consumer token, created in the worker's database.
 * - `report(input)`: reports one record, answers its record id.
 * - `claimReplaysOf(reviewId)`: claims due replays until one of that record comes back.
 * - `replayOutcomes(reviewIds, outcome)`: claims the replays of those records and reports the
 *   same outcome for each, as a consumer finishing them would.
 * - `sql(text, values)`: a query on the worker's database, for state the API does not create
 *   (a sequence's last applied number, an `unknown` journal entry).
 * - `anotherPerson(role, { viewport })`: a second person of that role, signed in on a browser
 *   context of their own (closed after the test), and a page of it.
 * - `clickUntil(target, done)` and `openDialog(page, button, title)`: a click that is repeated
 *   until it took effect, for controls that may be clicked before the page is hydrated.
 *
 * Every helper makes its names unique (`uniqueTag()`), so the specs of a worker, which share one
 * database, never see each other's records by accident.
 */
import { randomBytes } from "node:crypto";
import type { APIRequestContext, BrowserContext, Locator, Page, ViewportSize } from "@playwright/test";
import pg from "pg";
import type { PersonRole } from "@/lib/access/client";
import { expect, test as base, type TestServer } from "./fixtures";

export { expect };

export type Category = "manual-review" | "sequence-gap" | "effect-result-unknown";

export interface ReportInput {
  category: Category;
  reason: string;
  requiredCheck: string;
  attempts?: number;
  lastError?: string;
  source?: { transport: string; queue?: string; consumer?: string; transportId?: string };
  /** The envelope as the consumer received it (may be invalid on purpose). */
  message: unknown;
}

export interface ClaimedReplay {
  replayId: string;
  reviewId: string;
  revisionNumber: number;
  envelope: Record<string, unknown> & { payload: Record<string, unknown> };
}

interface Consumer {
  name: string;
  token: string;
}

interface RecordFixtures {
  report: (input: ReportInput) => Promise<string>;
  claimReplaysOf: (reviewId: string) => Promise<ClaimedReplay>;
  replayOutcomes: (reviewIds: string[], outcome: "applied" | "routed" | "failed") => Promise<ClaimedReplay[]>;
  sql: <R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]) => Promise<R[]>;
  anotherPerson: (role: PersonRole, options?: { viewport?: ViewportSize }) => Promise<{ email: string; page: Page }>;
}

/** A short random tag for ids, keys and names that must not collide within a worker's database. */
export function uniqueTag(): string {
  return randomBytes(4).toString("hex");
}

export async function reportRecord(
  request: APIRequestContext,
  server: TestServer,
  token: string,
  input: ReportInput,
): Promise<string> {
  const response = await request.post(`${server.baseURL}/api/v1/reviews`, {
    data: { attempts: 1, ...input },
    headers: { authorization: `Bearer ${token}` },
  });
  expect(response.status(), `reporting a record: ${await response.text()}`).toBe(201);
  const body = (await response.json()) as { id: string; status: string };
  expect(body.status).toBe("open");
  return body.id;
}

let signInAddress = 0;

export const test = base.extend<RecordFixtures, { consumer: Consumer }>({
  consumer: [
    async ({ server }, provide) => {
      // The fixture pointed this process at the worker's database; tokens are made there.
      expect(process.env.DATABASE_URL).toBe(server.databaseUrl);
      const { createApiToken } = await import("../lib/auth/tokens");
      const name = `e2e-consumer-${uniqueTag()}`;
      const { token } = await createApiToken(name, "consumer", "system:e2e");
      await provide({ name, token });
    },
    { scope: "worker" },
  ],

  report: async ({ request, server, consumer }, provide) => {
    await provide((input) => reportRecord(request, server, consumer.token, input));
  },

  claimReplaysOf: async ({ request, server, consumer }, provide) => {
    await provide(async (reviewId) => {
      let found: ClaimedReplay | undefined;
      // A replay is due at once (runAt = now); polling only covers clock skew between the app
      // and the database. Other due replays of the worker's database may be claimed on the way.
      await expect
        .poll(
          async () => {
            const response = await request.post(`${server.baseURL}/api/v1/replays/claim`, {
              data: { consumer: consumer.name, limit: 100 },
              headers: { authorization: `Bearer ${consumer.token}` },
            });
            expect(response.status(), await response.text()).toBe(200);
            const { items } = (await response.json()) as { items: ClaimedReplay[] };
            found ??= items.find((item) => item.reviewId === reviewId);
            return found !== undefined;
          },
          { message: `a replay of record ${reviewId} can be claimed`, timeout: 15_000 },
        )
        .toBe(true);
      return found!;
    });
  },

  replayOutcomes: async ({ request, server, consumer }, provide) => {
    await provide(async (reviewIds, outcome) => {
      const wanted = new Set(reviewIds);
      const found = new Map<string, ClaimedReplay>();
      // Replays of other records claimed on the way stay claimed, as with claimReplaysOf.
      await expect
        .poll(
          async () => {
            const response = await request.post(`${server.baseURL}/api/v1/replays/claim`, {
              data: { consumer: consumer.name, limit: 100 },
              headers: { authorization: `Bearer ${consumer.token}` },
            });
            expect(response.status(), await response.text()).toBe(200);
            const { items } = (await response.json()) as { items: ClaimedReplay[] };
            for (const item of items) if (wanted.has(item.reviewId)) found.set(item.reviewId, item);
            return found.size;
          },
          { message: `the replays of ${reviewIds.length} records can be claimed`, timeout: 20_000 },
        )
        .toBe(wanted.size);
      for (const replay of found.values()) {
        const response = await request.post(`${server.baseURL}/api/v1/replays/${replay.replayId}/outcome`, {
          data:
            outcome === "routed"
              ? { outcome, reason: "sequence-gap", requiredCheck: "find the missing predecessor" }
              : { outcome, ...(outcome === "failed" ? { detail: "provider refused" } : {}) },
          headers: { authorization: `Bearer ${consumer.token}` },
        });
        expect(response.status(), await response.text()).toBe(200);
      }
      return [...found.values()];
    });
  },

  sql: async ({ server }, provide) => {
    const client = new pg.Client({ connectionString: server.databaseUrl });
    await client.connect();
    try {
      await provide(async (text, values) => (await client.query(text, values)).rows);
    } finally {
      await client.end();
    }
  },

  anotherPerson: async ({ browser, server, createPerson }, provide) => {
    const contexts: BrowserContext[] = [];
    await provide(async (role, options = {}) => {
      const context = await browser.newContext({ baseURL: server.baseURL, ...options });
      contexts.push(context);
      const person = await createPerson(role);
      signInAddress += 1;
      // TEST-NET-3, one address per sign-in: the login rate limit is per client address, and
      // the shared fixtures use TEST-NET-2.
      const response = await context.request.post(`${server.baseURL}/api/auth/sign-in/email`, {
        data: { email: person.email, password: person.password },
        headers: { origin: server.baseURL, "x-forwarded-for": `203.0.113.${(signInAddress % 250) + 1}` },
      });
      expect(response.ok(), `signing in ${person.email}: ${await response.text()}`).toBe(true);
      return { email: person.email, page: await context.newPage() };
    });
    for (const context of contexts) await context.close();
  },
});

/** An `invoice.reminder` envelope with keys unique to `tag`. */
export function invoiceReminder(
  tag: string,
  overrides: { sequence?: number; payload?: Record<string, unknown>; id?: string } = {},
) {
  return {
    id: overrides.id ?? `msg-${tag}`,
    kind: "invoice.reminder",
    effectKey: `invoice-${tag}:reminder`,
    sequenceKey: `invoice-${tag}`,
    sequence: overrides.sequence ?? 1,
    payload: overrides.payload ?? { schema: "2021-03", invoiceId: tag },
  };
}

/** Where a record came from, as a Redis Streams consumer reports it. */
export function redisSource(tag: string) {
  return { transport: "redis-streams", queue: "invoices", consumer: "worker-1", transportId: `1764480000000-${tag}` };
}

/**
 * Clicks `target` until `done` says the click took effect: a click that lands before the page is
 * hydrated does nothing, so it is repeated, but only while `done` is still false (a second click
 * on a toggle would undo the first).
 */
export async function clickUntil(target: Locator, done: () => Promise<boolean>): Promise<void> {
  await expect(async () => {
    if (!(await done())) await target.click();
    await expect.poll(done, { timeout: 2_000 }).toBe(true);
  }).toPass({ timeout: 60_000 });
}

/** Opens the dialog named `title` with `button` (see clickUntil) and answers it. */
export async function openDialog(page: Page, button: Locator, title: string): Promise<Locator> {
  const dialog = page.getByRole("dialog", { name: title });
  await clickUntil(button, () => dialog.isVisible());
  return dialog;
}
