import { readEnvelopeKeys } from "@review-console/contract";
import { describe, expect, it } from "vitest";
import { POST as batch } from "@/app/api/v1/reviews/batch/route";
import { POST as report } from "@/app/api/v1/reviews/route";
import { verifyDecisionLog } from "@/lib/audit";
import { type Actor } from "@/lib/access";
import { dbPool } from "@/lib/db/client";
import { intakeReports, messageKeyOf, type Report, INTAKE_STATEMENT_NAME } from "@/lib/reviews";
import type { ReportInput } from "@/lib/reviews";
import { call, tokenFor } from "../support/http";
import { setupTestDatabase, withClient } from "../support/database";

// The intake statement as it is sent since ADR 0035 (one JSON parameter, a named prepared
// statement on node-postgres) must write exactly what the statement before it wrote (one typed
// array per column, through Prisma): the same records, history, log entries and answers, for new
// messages, repeats of open records, a message whose earlier record is finished, and repeats
// inside one batch (rounds). The statement before it is kept here as the reference, as it was but
// for the error class, which the database computed then and intake writes now.

const database = setupTestDatabase();
const actor: Actor = { kind: "token", id: "t-compare", label: "token:compare", role: "consumer" };

const PREVIOUS_SQL = `
WITH input AS (
  SELECT * FROM unnest(
    $1::int[], $2::"ReviewCategory"[], $3::text[], $4::text[], $5::int[], $6::text[], $7::text[], $8::text[],
    $9::text[], $10::text[], $11::text[], $12::text[], $13::bigint[], $14::text[], $15::text[]
  ) AS t(ord, category, reason, required_check, attempts, last_error, message, message_key,
         message_id, kind, effect_key, sequence_key, sequence, payload_schema, source)
), up AS (
  INSERT INTO review_records AS r (category, reason, required_check, attempts, last_error, message,
      message_key, message_id, kind, effect_key, sequence_key, sequence, payload_schema, source, error_class)
  SELECT category, reason, required_check, attempts, last_error, message::json,
      message_key, message_id, kind, effect_key, sequence_key, sequence, payload_schema, source::jsonb,
      review_error_class(last_error)
    FROM input ORDER BY ord
  ON CONFLICT (message_key) WHERE status IN ('open', 'replay-scheduled', 'replaying')
  DO UPDATE SET
      attempts = GREATEST(r.attempts + 1, EXCLUDED.attempts),
      report_count = r.report_count + 1,
      category = EXCLUDED.category,
      reason = EXCLUDED.reason,
      required_check = EXCLUDED.required_check,
      last_error = COALESCE(EXCLUDED.last_error, r.last_error),
      error_class = CASE WHEN EXCLUDED.last_error IS NULL THEN r.error_class
                         ELSE review_error_class(EXCLUDED.last_error) END,
      source = COALESCE(EXCLUDED.source, r.source),
      last_seen_at = now(),
      updated_at = now(),
      version = r.version + 1
  RETURNING r.id, r.message_key, r.status::text AS status, r.attempts, r.effect_key, (r.xmax = 0) AS created
), history AS (
  INSERT INTO review_history (review_id, actor, action, to_status, reason, details)
  SELECT up.id, $16::text, CASE WHEN up.created THEN 'reported' ELSE 'reported-again' END,
         up.status::"ReviewStatus", i.reason,
         jsonb_build_object('category', i.category, 'attempts', up.attempts, 'reportedAttempts', i.attempts,
                            'lastError', i.last_error, 'source', i.source::jsonb)
    FROM up JOIN input i USING (message_key)
), logged AS (
  INSERT INTO decision_log (actor, actor_role, action, review_id, effect_key, reason, details)
  SELECT $16::text, $17::text, CASE WHEN up.created THEN 'review.reported' ELSE 'review.reported-again' END,
         up.id, up.effect_key, i.reason,
         jsonb_build_object('category', i.category, 'attempts', up.attempts, 'messageId', i.message_id,
                            'kind', i.kind, 'source', i.source::jsonb)
    FROM up JOIN input i USING (message_key) ORDER BY i.ord
)
SELECT i.ord, up.id::text AS id, up.status, up.attempts, up.created FROM up JOIN input i USING (message_key)`;

/** The previous intake (statement and rounds) on its own connection, as Prisma sent it. */
async function previousIntake(reports: Report[]): Promise<{ created: boolean; attempts: number; status: string }[]> {
  // The keys are short here: the previous code's 500-character prefix changed none of them.
  const prepared = reports.map(({ input, rawMessage }) => {
    const canonical = JSON.stringify(input.message);
    const keys = readEnvelopeKeys(input.message);
    return { input, messageText: rawMessage ?? canonical, messageKey: messageKeyOf(canonical, keys.id), keys };
  });
  const results: { created: boolean; attempts: number; status: string }[] = [];
  return withClient(database.current.url, async (client) => {
    await client.query("BEGIN");
    let pending = prepared.map((p, index) => ({ p, index }));
    while (pending.length) {
      const seen = new Set<string>();
      const round = pending.filter(({ p }) => !seen.has(p.messageKey) && (seen.add(p.messageKey), true));
      pending = pending.filter((item) => !round.includes(item));
      const col = <T>(f: (r: (typeof prepared)[number], i: number) => T) => round.map(({ p }, i) => f(p, i));
      const { rows } = await client.query(PREVIOUS_SQL, [
        col((_, i) => i),
        col((r) => r.input.category),
        col((r) => r.input.reason),
        col((r) => r.input.requiredCheck),
        col((r) => r.input.attempts),
        col((r) => r.input.lastError ?? null),
        col((r) => r.messageText),
        col((r) => r.messageKey),
        col((r) => r.keys.id),
        col((r) => r.keys.kind),
        col((r) => r.keys.effectKey),
        col((r) => r.keys.sequenceKey),
        col((r) => (r.keys.sequence === null ? null : String(r.keys.sequence))),
        col((r) => r.keys.schema),
        col((r) => (r.input.source ? JSON.stringify(r.input.source) : null)),
        actor.label,
        actor.role,
      ]);
      for (const row of rows) {
        const { index } = round[row.ord]!;
        results[index] = { created: row.created, attempts: row.attempts, status: row.status };
      }
    }
    await client.query("COMMIT");
    return results;
  });
}

function input(prefix: string, n: number, overrides: Partial<ReportInput> = {}): ReportInput {
  return {
    category: n % 3 === 0 ? "manual-review" : n % 3 === 1 ? "sequence-gap" : "effect-result-unknown",
    reason: `reason-${n % 4}`,
    requiredCheck: `check ${n}`,
    attempts: 1 + (n % 3),
    ...(n % 2 ? { lastError: `ETIMEDOUT after ${n} ms` } : {}),
    ...(n % 4 === 3 ? {} : { source: { transport: "redis-streams", queue: "q", consumer: `w-${n % 2}` } }),
    message: {
      id: `${prefix}-${n}`,
      kind: "invoice.reminder",
      effectKey: `${prefix}-effect-${n}`,
      sequenceKey: `${prefix}-key-${n % 5}`,
      sequence: n,
      payload: { schema: "2021-03", n, note: 'a "quoted" \\ back\u00e9' },
    },
    ...overrides,
  };
}

/** Three batches: new messages; repeats (one of them twice in the batch) and new ones; after one record finished, its message again. */
function scenario(prefix: string): { batches: Report[][]; finish: string } {
  const one = (n: number, overrides?: Partial<ReportInput>): Report => {
    const report = { input: input(prefix, n, overrides) };
    // Half of them with the message's text as a client sent it (white space, key order kept).
    return n % 2 ? { ...report, rawMessage: JSON.stringify(report.input.message, null, 1) } : report;
  };
  return {
    batches: [
      Array.from({ length: 12 }, (_, n) => one(n)),
      [
        one(1, { attempts: 7 }),
        one(2, { lastError: undefined, source: undefined }),
        one(12),
        one(2, { reason: "changed", category: "manual-review" }),
        one(13),
        one(3, { attempts: 0, lastError: "ECONNRESET later" }),
      ],
      [one(4), one(5), one(14)],
    ],
    finish: messageKeyOf("", `${prefix}-4`),
  };
}

async function finish(messageKey: string): Promise<void> {
  await withClient(database.current.url, (c) =>
    c.query("UPDATE review_records SET status = 'resolved' WHERE message_key = $1", [messageKey]),
  );
}

/** What a prefix's reports wrote, with the prefix and the generated values taken out. */
async function written(prefix: string) {
  return withClient(database.current.url, async (c) => {
    const strip = (rows: Record<string, unknown>[]) =>
      JSON.parse(JSON.stringify(rows).replaceAll(prefix, "PREFIX")) as Record<string, unknown>[];
    const records = await c.query(
      `SELECT status, category, reason, required_check, attempts, report_count, last_error, message::text AS message,
              message_key, message_id, kind, effect_key, sequence_key, sequence::text, payload_schema, source, version,
              error_class, last_seen_at >= first_seen_at AS seen_in_order
         FROM review_records WHERE message_id LIKE $1 || '-%' ORDER BY seq`,
      [prefix],
    );
    const history = await c.query(
      `SELECT h.actor, h.action, h.to_status, h.reason, h.details, r.message_id
         FROM review_history h JOIN review_records r ON r.id = h.review_id
        WHERE r.message_id LIKE $1 || '-%' ORDER BY h.id`,
      [prefix],
    );
    const log = await c.query(
      `SELECT l.actor, l.actor_role, l.action, l.effect_key, l.reason, l.details, r.message_id
         FROM decision_log l JOIN review_records r ON r.id = l.review_id
        WHERE r.message_id LIKE $1 || '-%' ORDER BY l.seq`,
      [prefix],
    );
    return { records: strip(records.rows), history: strip(history.rows), log: strip(log.rows) };
  });
}

describe("the intake statement", () => {
  it("writes what the previous statement wrote, for new messages, repeats, rounds and a finished record's message", async () => {
    const before = scenario("prev");
    const now = scenario("next");
    const answers: { previous: unknown[]; current: unknown[] } = { previous: [], current: [] };
    for (let i = 0; i < before.batches.length; i++) {
      if (i === 2) {
        await finish(before.finish);
        await finish(now.finish);
      }
      answers.previous.push(await previousIntake(before.batches[i]!));
      answers.current.push(
        (await intakeReports(now.batches[i]!, actor)).map(({ created, attempts, status }) => ({
          created,
          attempts,
          status,
        })),
      );
    }
    expect(answers.current).toEqual(answers.previous);
    const previous = await written("prev");
    const current = await written("next");
    expect(previous.records).toHaveLength(16); // 15 messages, one of them finished and reported again
    expect(previous.log).toHaveLength(21);
    expect(current).toEqual(previous);
    expect((await verifyDecisionLog(database.current.url)).ok).toBe(true);
  });

  it("is a named prepared statement of the connection that sent it", async () => {
    await intakeReports([{ input: input("prepared", 1) }], actor);
    // pg's pool hands out the connection released last: the one that just sent it.
    const { rows } = await dbPool().query<{ name: string }>("SELECT name FROM pg_prepared_statements");
    expect(rows.map((r) => r.name)).toContain(INTAKE_STATEMENT_NAME);
  });

  // Text columns always got U+FFFD (node-postgres encodes parameters as UTF-8); the source's jsonb
  // cast refused the escape, a 500. In the JSON parameter every text would be refused so.
  it("stores an unpaired surrogate in a report's texts and source as U+FFFD instead of failing", async () => {
    const token = await tokenFor("consumer");
    const id = `lone-${Math.random().toString(36).slice(2)}`;
    const lone = {
      ...input("lone", 1, {
        reason: "reason \ud800",
        requiredCheck: "check \udc00",
        lastError: "error \ud800",
        source: { transport: "t\ud800", queue: "q\udc00", consumer: "c", transportId: "x\ud800" },
      }),
      message: { id, kind: "invoice.reminder" },
    };
    const single = await call(report, { token, body: lone });
    expect(single.status, JSON.stringify(single.body)).toBe(201);
    const many = await call(batch, {
      token,
      body: {
        records: [
          { ...lone, message: { id: `${id}-b`, kind: "k" } },
          { ...lone, message: { id: `${id}-c` } },
        ],
      },
    });
    expect(many.status, JSON.stringify(many.body)).toBe(200);
    expect(many.body.recorded).toBe(2);
    const stored = await withClient(database.current.url, (c) =>
      c.query(
        "SELECT reason, required_check, last_error, source FROM review_records WHERE message_id LIKE $1 || '%' ORDER BY seq",
        [id],
      ),
    );
    expect(stored.rows).toHaveLength(3);
    for (const row of stored.rows) {
      expect(row).toEqual({
        reason: "reason \ufffd",
        required_check: "check \ufffd",
        last_error: "error \ufffd",
        source: { transport: "t\ufffd", queue: "q\ufffd", consumer: "c", transportId: "x\ufffd" },
      });
    }
  });
});
