import { verifyDecisionLog } from "@/lib/audit";
import { databaseUrl } from "@/lib/config";
import { apiRoute } from "@/lib/http/route";

export const GET = apiRoute("audit.read", async () => {
  const connectionString = databaseUrl();
  if (!connectionString) throw new Error("DATABASE_URL is not set");
  const checkedAt = new Date().toISOString();
  const verdict = await verifyDecisionLog(connectionString);
  if (verdict.ok) return Response.json({ ok: true, entries: verdict.entries, checkedAt });
  // brokenSeq is the entry's number, or "head" when the chain's head row itself is missing.
  const brokenSeq = /^\d+$/.test(verdict.brokenSeq) ? Number(verdict.brokenSeq) : verdict.brokenSeq;
  return Response.json({ ok: false, entries: verdict.entries, brokenSeq, problem: verdict.problem, checkedAt });
});
