import * as responses from "@/lib/openapi/responses";
import { ok } from "@/lib/openapi/parts";
import { verifyDecisionLog } from "@/lib/audit";
import { databaseUrl } from "@/lib/config";
import { apiRoute } from "@/lib/http/route";

export const GET = apiRoute(
  {
    method: "GET",
    route: "/api/v1/audit/verification",
    operationId: "verifyDecisionLog",
    summary: "Verify the hash chain",
    description: "Recomputes every hash and link in one snapshot: an auditor's check, not something to poll.",
    tag: "Decision log",
    access: { kind: "permission", permission: "audit.read" },
    answers: ok("`ok`, or the first broken entry and what is wrong with it.", responses.verificationSchema),
  },
  async () => {
    const connectionString = databaseUrl();
    if (!connectionString) throw new Error("DATABASE_URL is not set");
    const checkedAt = new Date().toISOString();
    const verdict = await verifyDecisionLog(connectionString);
    if (verdict.ok) return Response.json({ ok: true, entries: verdict.entries, checkedAt });
    // brokenSeq is the entry's number, or "head" when the chain's head row itself is missing.
    const brokenSeq = /^\d+$/.test(verdict.brokenSeq) ? Number(verdict.brokenSeq) : verdict.brokenSeq;
    return Response.json({ ok: false, entries: verdict.entries, brokenSeq, problem: verdict.problem, checkedAt });
  },
);
