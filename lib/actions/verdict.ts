import { z } from "zod";
import { type Actor, domainOfKind, grantsOf, mayRead } from "@/lib/access";
import { db } from "@/lib/db/client";
import { notFound } from "@/lib/domain/refusal";
import { type ItemVerdict, type JudgedRecord, judgeRecordReplay, VERDICTS } from "@/lib/operations";
import { correctedEnvelope } from "@/lib/reviews";

/** The body of POST /api/v1/reviews/{id}/verdict: the replay a person is about to confirm. */
export const verdictRequestSchema = z
  .object({
    action: z.enum(["replay", "correct-and-replay"]),
    payload: z.record(z.string(), z.unknown()).optional(),
    envelope: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({
    id: "VerdictRequest",
    description:
      "`replay` judges the record's latest version; `correct-and-replay` judges the correction (`payload`, missing `envelope` fields) as the action would build it.",
  });
export type VerdictRequest = z.infer<typeof verdictRequestSchema>;

export const recordVerdictSchema = z
  .object({
    action: z.enum(["replay", "correct-and-replay"]),
    version: z.int().meta({ description: "The record's version the verdict was computed for." }),
    verdict: z.enum(VERDICTS),
    detail: z.string().nullable(),
  })
  .meta({ id: "RecordVerdict" });
export type RecordVerdict = z.infer<typeof recordVerdictSchema>;

/** The record as the dry run's judge takes it, and what its replay would send. */
interface RecordRow extends JudgedRecord {
  /** As text, as the dry run reads it: the message may be anything a producer sent. */
  envelope: string;
}

/**
 * What the contract would say if this record's replay (or this correction's) ran now: the bulk
 * dry run's judge (lib/operations/dry-run.ts) on this one record, so the page tells a person
 * before a single action exactly what a dry run would. A correction is built by the action's own
 * correctedEnvelope; one that cannot be built is `invalid` with its reason.
 */
export async function recordVerdict(id: string, request: VerdictRequest, actor: Actor): Promise<RecordVerdict> {
  const [row] = await db().$queryRaw<RecordRow[]>`
    SELECT rr.id::text AS id, rr.version, rr.status::text AS status, rr.category::text AS category, rr.effect_key AS "effectKey",
           rr.kind, COALESCE(rev.envelope::text, rr.message::text) AS envelope
      FROM review_records rr
      LEFT JOIN LATERAL (SELECT envelope FROM review_revisions v
                          WHERE v.review_id = rr.id ORDER BY v.number DESC LIMIT 1) rev ON true
     WHERE rr.id = ${id}::uuid`;
  const grants = grantsOf(actor);
  // A record outside the caller's domains is answered exactly as an unknown id (ADR 0030).
  if (!row || !mayRead(grants, await domainOfKind(row.kind))) throw notFound(`no review record ${id}`);
  const { envelope: text, ...record } = row;
  const latest: unknown = JSON.parse(text);
  const answer = (judged: ItemVerdict): RecordVerdict => ({ action: request.action, version: row.version, ...judged });
  if (request.action === "replay") return answer(await judgeRecordReplay(record, latest, "replay", grants));
  const corrected = correctedEnvelope(latest, { payload: request.payload, envelope: request.envelope });
  if (!corrected.ok) return answer({ verdict: "invalid", detail: `${corrected.code}: ${corrected.message}` });
  return answer(await judgeRecordReplay(record, corrected.envelope, "correct-and-replay", grants));
}
