import { db } from "@/lib/db/client";
import type { Role } from "./roles";
import type { Grant } from "./grant";

/**
 * A person's grants, read on every signed-in request (nothing cached: a revoked grant stops
 * working at the next request, like a revoked token). No rows: no permission anywhere. `client`:
 * a transaction, when the answer must hold for what that transaction does next.
 */
export async function grantsOfUser(
  userId: string,
  client: Pick<ReturnType<typeof db>, "$queryRaw"> = db(),
): Promise<Grant[]> {
  const rows = await client.$queryRaw<{ role: Role; domain: string | null }[]>`
    SELECT DISTINCT role::text AS role, domain FROM role_grants WHERE user_id = ${userId}::uuid ORDER BY 1, 2`;
  return rows.map((r) => ({ role: r.role, domain: r.domain }));
}
