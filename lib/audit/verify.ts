import pg from "pg";

export type ChainVerdict =
  { ok: true; entries: number } | { ok: false; entries: number; brokenSeq: string; problem: string };

const GENESIS = "0".repeat(64);

/**
 * Recomputes every entry's hash with the same SQL function the chaining trigger uses and checks
 * each link, the numbering (a deleted entry leaves a hole) and the head (a deleted tail).
 * One streaming pass in the database: no entries travel to this process unless broken.
 */
export async function verifyDecisionLog(connectionString: string): Promise<ChainVerdict> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  // One snapshot for the count, the chain and the head, so appends running meanwhile cannot make
  // the three disagree.
  await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
  try {
    const { rows: countRows } = await client.query<{ n: string }>("SELECT count(*)::text AS n FROM decision_log");
    const entries = Number(countRows[0]?.n ?? 0);
    const { rows } = await client.query<{ seq: string; problem: string }>(
      `WITH chain AS (
         SELECT seq, prev_hash, hash,
                decision_log_entry_hash(prev_hash, seq, at, actor, actor_role, action, review_id,
                                        effect_key, reason, details) AS expected,
                lag(hash) OVER (ORDER BY seq) AS previous_hash,
                lag(seq) OVER (ORDER BY seq) AS previous_seq
           FROM decision_log
       )
       SELECT seq::text,
              CASE
                WHEN seq <> coalesce(previous_seq, 0) + 1 THEN 'entries before it are missing'
                WHEN prev_hash <> coalesce(previous_hash, $1) THEN 'its link to the previous entry is broken'
                ELSE 'its content does not match its hash'
              END AS problem
         FROM chain
        WHERE seq <> coalesce(previous_seq, 0) + 1
           OR prev_hash <> coalesce(previous_hash, $1)
           OR hash <> expected
        ORDER BY seq
        LIMIT 1`,
      [GENESIS],
    );
    const broken = rows[0];
    if (broken) return { ok: false, entries, brokenSeq: broken.seq, problem: broken.problem };
    const { rows: headRows } = await client.query<{ ok: boolean; last_seq: string }>(
      `SELECT h.last_seq::text AS last_seq,
              h.last_seq = coalesce(t.seq, 0) AND h.last_hash = coalesce(t.hash, $1) AS ok
         FROM decision_log_head h
         LEFT JOIN LATERAL (SELECT seq, hash FROM decision_log ORDER BY seq DESC LIMIT 1) t ON true
        WHERE h.id = 1`,
      [GENESIS],
    );
    const head = headRows[0];
    if (!head) return { ok: false, entries, brokenSeq: "head", problem: "the chain head is missing" };
    if (!head.ok) {
      return { ok: false, entries, brokenSeq: head.last_seq, problem: "entries at the end of the log are missing" };
    }
    return { ok: true, entries };
  } finally {
    await client.query("COMMIT").catch(() => {});
    await client.end();
  }
}
