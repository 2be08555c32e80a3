import { db } from "./client";

/** Whether the console's database answers a query right now (what /api/health reports). */
export async function databaseAnswers(): Promise<boolean> {
  try {
    await db().$queryRaw`SELECT 1`;
    return true;
  } catch {
    return false;
  }
}
